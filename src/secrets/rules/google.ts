/** Google API keys (AIza…). */

import { fakeSecret, type PatternRule } from "../rule.ts";

const URLSAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

/** Google API key. */
export const googleApiKey: PatternRule = {
  id: "google-api-key",
  description: "Google API key (AIza followed by 35 characters).",
  keywords: ["AIza"],
  pattern: /AIza[0-9A-Za-z_-]{35}/y,
  notBefore: /[0-9A-Za-z_-]/,
  notAfter: /[A-Za-z0-9_-]/,
  follows: [{ chars: /[0-9A-Za-z_-]/, min: 35 }],
  samples: () => ({
    match: [
      `GOOGLE_API_KEY=AIza${fakeSecret("go1", 35, URLSAFE)}`,
      `<meta name="maps-key" content="AIza${fakeSecret("go2", 35, URLSAFE)}">`,
    ],
    noMatch: [`AIza${fakeSecret("go3", 34)}`, `AIza${fakeSecret("go4", 36)}`],
  }),
};
