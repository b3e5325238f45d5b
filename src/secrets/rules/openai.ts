/** OpenAI API keys: legacy sk-…T3BlbkFJ… and project, service-account and admin keys. */

import { fakeSecret, type PatternRule } from "../rule.ts";

const URLSAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

/** OpenAI API key. */
export const openaiApiKey: PatternRule = {
  id: "openai-api-key",
  description: "OpenAI API key (sk-…T3BlbkFJ…, sk-proj-, sk-svcacct-, sk-admin-).",
  keywords: ["sk-"],
  pattern:
    /sk-(?:(?:proj|svcacct|admin)-)?[A-Za-z0-9_-]{20,200}T3BlbkFJ[A-Za-z0-9_-]{20,200}|sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{80,300}/y,
  notBefore: /[A-Za-z0-9_-]/,
  notAfter: /[A-Za-z0-9_-]/,
  // The shortest: 20 + T3BlbkFJ + 20, all of the class (proj- too).
  follows: [{ chars: /[A-Za-z0-9_-]/, min: 48 }],
  samples: () => ({
    match: [
      `OPENAI_API_KEY=sk-${fakeSecret("oa1", 20)}T3BlbkFJ${fakeSecret("oa2", 20)}`,
      `api_key="sk-proj-${fakeSecret("oa3", 74, URLSAFE)}T3BlbkFJ${
        fakeSecret("oa4", 74, URLSAFE)
      }"`,
      `key: sk-proj-${fakeSecret("oa5", 156, URLSAFE)}`,
    ],
    noMatch: [`sk-${fakeSecret("oa6", 48)}`, "task-sk-proj-notakey", "sk-proj-xxxxxxxx"],
  }),
};
