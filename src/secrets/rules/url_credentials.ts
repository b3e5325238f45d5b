/** Credentials embedded in URLs (`scheme://user:password@host`): the password is the secret. */

import { fakeSecret, type PatternRule } from "../rule.ts";

/** The password of a `scheme://user:password@host` URL. */
export const urlCredentials: PatternRule = {
  id: "url-credentials",
  description: "The password in a scheme://user:password@host URL (user and host are kept).",
  keywords: ["://"],
  follows: [
    { chars: /[A-Za-z0-9._~%!$&'*+,;=-]/, min: 1, max: 64 },
    { literal: ":" },
    { chars: /[^\s@\/"'<>`]/, min: 3, max: 128 },
    { literal: "@" },
  ],
  pattern: /:\/\/[A-Za-z0-9._~%!$&'*+,;=-]{1,64}:(?<secret>[^\s@\/"'<>`]{3,128})@/y,
  samples: () => ({
    match: [
      `DATABASE_URL=postgres://app:${fakeSecret("u1", 16)}@db.internal:5432/app`,
      `redis_url = "redis://default:${fakeSecret("u2", 24)}@cache.example.net:6379"`,
    ],
    noMatch: [
      "postgres://user:password@localhost/db",
      "https://github.com/owner/repo",
      "mongodb://localhost:27017",
      "postgres://app:${DB_PASSWORD}@db/app",
    ],
  }),
};
