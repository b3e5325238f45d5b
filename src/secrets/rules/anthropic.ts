/** Anthropic API keys (sk-ant-…), labelled apart from OpenAI's sk- keys. */

import { fakeSecret, type PatternRule } from "../rule.ts";

const URLSAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

/** Anthropic API or admin key. */
export const anthropicApiKey: PatternRule = {
  id: "anthropic-api-key",
  description: "Anthropic API or admin key (sk-ant-api03-…, sk-ant-admin01-…).",
  keywords: ["sk-ant-"],
  pattern: /sk-ant-[A-Za-z0-9_-]{32,255}/y,
  notBefore: /[A-Za-z0-9_-]/,
  notAfter: /[A-Za-z0-9_-]/,
  follows: [{ chars: /[A-Za-z0-9_-]/, min: 32 }],
  samples: () => ({
    match: [
      `ANTHROPIC_API_KEY=sk-ant-api03-${fakeSecret("an1", 93, URLSAFE)}AA`,
      `client = Anthropic(api_key="sk-ant-admin01-${fakeSecret("an2", 93, URLSAFE)}AA")`,
    ],
    noMatch: ["sk-ant-api03-short", "sk-ant-api03-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"],
  }),
};
