/** JSON Web Tokens: three base64url parts, the first two JSON objects (eyJ…). */

import { fakeSecret, type PatternRule } from "../rule.ts";

const URLSAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

/** A signed JSON Web Token. */
export const jwt: PatternRule = {
  id: "jwt",
  description: "A signed JSON Web Token (eyJ….eyJ….signature).",
  keywords: ["eyJ"],
  pattern: /eyJ[A-Za-z0-9_-]{8,4096}\.eyJ[A-Za-z0-9_-]{8,8192}\.[A-Za-z0-9_-]{16,1024}/y,
  notBefore: /[A-Za-z0-9_-]/,
  notAfter: /[A-Za-z0-9_-]/,
  follows: [
    { chars: /[A-Za-z0-9_-]/, min: 8, max: 4096 },
    { literal: ".eyJ" },
    { chars: /[A-Za-z0-9_-]/, min: 8, max: 8192 },
    { literal: "." },
    { chars: /[A-Za-z0-9_-]/, min: 16 },
  ],
  samples: () => ({
    match: [
      `Authorization header value eyJ${fakeSecret("j1", 30, URLSAFE)}.eyJ${
        fakeSecret("j2", 80, URLSAFE)
      }.${fakeSecret("j3", 43, URLSAFE)}`,
      `const session = "eyJ${fakeSecret("j4", 20, URLSAFE)}.eyJ${fakeSecret("j5", 40, URLSAFE)}.${
        fakeSecret("j6", 86, URLSAFE)
      }";`,
    ],
    noMatch: [`eyJ${fakeSecret("j7", 20)}.eyJ${fakeSecret("j8", 20)}`, "eyJ-eyJ-eyJ-eyJ-"],
  }),
};
