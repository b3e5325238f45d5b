/** Twilio API keys (SK + 32 hex digits). */

import { fakeSecret, HEX, type PatternRule } from "../rule.ts";

/** Twilio API key SID's secret-bearing form. */
export const twilioApiKey: PatternRule = {
  id: "twilio-api-key",
  description: "Twilio API key (SK followed by 32 hex digits).",
  keywords: ["SK"],
  pattern: /SK[0-9a-fA-F]{32}/y,
  notBefore: /[0-9A-Za-z]/,
  notAfter: /[A-Za-z0-9_]/,
  follows: [{ chars: /[0-9a-fA-F]/, min: 32 }],
  samples: () => ({
    match: [`TWILIO_API_KEY=SK${fakeSecret("tw1", 32, HEX)}`, `"SK${fakeSecret("tw2", 32, HEX)}"`],
    noMatch: [`SK${fakeSecret("tw3", 31, HEX)}`, "SKIP_TESTS=1"],
  }),
};
