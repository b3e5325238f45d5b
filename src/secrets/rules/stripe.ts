/** Stripe live secret and restricted keys (test keys are not secrets). */

import { fakeSecret, type PatternRule } from "../rule.ts";

/** Stripe live secret key or restricted key. */
export const stripeSecretKey: PatternRule = {
  id: "stripe-secret-key",
  description: "Stripe live secret key (sk_live_) or restricted key (rk_live_).",
  keywords: ["sk_live_", "rk_live_"],
  pattern: /[sr]k_live_[A-Za-z0-9]{24,255}/y,
  notBefore: /[A-Za-z0-9]/,
  notAfter: /[A-Za-z0-9_]/,
  follows: [{ chars: /[A-Za-z0-9]/, min: 24 }],
  samples: () => ({
    match: [
      `STRIPE_SECRET_KEY=sk_live_${fakeSecret("st1", 24)}`,
      `Stripe.api_key = "rk_live_${fakeSecret("st2", 99)}"`,
    ],
    noMatch: [`sk_test_${fakeSecret("st3", 24)}`, `pk_live_${fakeSecret("st4", 24)}`],
  }),
};
