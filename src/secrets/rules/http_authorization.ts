/** HTTP `Authorization` headers with a literal credential (Bearer, Basic, token). */

import { BASE64, fakeSecret, type PatternRule } from "../rule.ts";

/** The credential of an Authorization header. */
export const httpAuthorization: PatternRule = {
  id: "http-authorization",
  description:
    "The credential in an Authorization header (Bearer, Basic, token …); the scheme is kept.",
  keywords: ["authorization"],
  ignoreCase: true,
  pattern:
    /(?:proxy-)?authorization["']?\s{0,5}[:=]\s{0,5}["']?(?:(?:bearer|basic|token|bot|digest)\s{1,3})?(?<secret>[A-Za-z0-9._~+\/=-]{12,4096})/iy,
  minEntropy: 3,
  samples: () => ({
    match: [
      `curl -H "Authorization: Bearer ${fakeSecret("h1", 40)}" https://api.example.net`,
      `Authorization: Basic ${fakeSecret("h2", 32, BASE64)}=`,
    ],
    noMatch: [
      'curl -H "Authorization: Bearer $TOKEN" https://api.example.net',
      "Authorization: Bearer <your-token>",
      "See the authorization section below.",
    ],
  }),
};
