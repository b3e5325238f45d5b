/** SendGrid API keys (SG.<22>.<43>). */

import { fakeSecret, type PatternRule } from "../rule.ts";

const URLSAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

/** SendGrid API key. */
export const sendgridApiKey: PatternRule = {
  id: "sendgrid-api-key",
  description: "SendGrid API key (SG. followed by 22 and 43 characters).",
  keywords: ["SG."],
  pattern: /SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}/y,
  notBefore: /[A-Za-z0-9_-]/,
  notAfter: /[A-Za-z0-9_.-]/,
  follows: [
    { chars: /[A-Za-z0-9_-]/, min: 22, max: 22 },
    { literal: "." },
    { chars: /[A-Za-z0-9_-]/, min: 43 },
  ],
  samples: () => ({
    match: [
      `SENDGRID_API_KEY=SG.${fakeSecret("sg1", 22, URLSAFE)}.${fakeSecret("sg2", 43, URLSAFE)}`,
      `sg = SendGridAPIClient("SG.${fakeSecret("sg3", 22, URLSAFE)}.${
        fakeSecret("sg4", 43, URLSAFE)
      }")`,
    ],
    noMatch: ["SG.short.key", "SG.example"],
  }),
};
