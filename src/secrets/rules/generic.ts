/**
 * The generic rule: a value assigned to a password / secret / token /
 * api_key name, kept unless it has enough entropy, mixes character classes
 * and is not a code reference or an environment-variable name.
 */

import { fakeSecret, type PatternRule } from "../rule.ts";

const MIXED = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789!#%+-_";

/** A code reference (`process.env.X`, `config.db.password`, `getToken`) or a bare name. */
function looksLikeCode(value: string): boolean {
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(value)) return true;
  if (/^[A-Za-z_]+$/.test(value)) return true;
  if (/^(?:~|\.{1,2})?\/[\w.\/-]{0,200}$/.test(value)) return true; // a file path
  if (/^(?:true|false|null|none|nil|undefined)$/i.test(value)) return true;
  if (/^[a-z]+(?:[-_][a-z]+)*\d?$/.test(value)) return true;
  return false;
}

/** A credential assigned to a telling name, with an entropy floor. */
export const genericSecret: PatternRule = {
  id: "generic-secret",
  description:
    "A value assigned to a name containing password, passwd, secret, token, apikey, _key / -key or credential, with at least 3.0 bits of entropy per character.",
  keywords: ["passw", "secret", "token", "_key", "-key", "apikey", "credential"],
  ignoreCase: true,
  pattern:
    /(?:passw(?:or)?d|secret|token|apikey|[_-]key|credentials?)[\w.-]{0,24}?["']?\s{0,5}(?::=|=>|=|:)\s{0,5}["'`]?(?<secret>[^\s"'`;,<>(){}\[\]]{8,200})/iy,
  // passw may go on with ord / or d, credential with s: 27 name characters at most.
  follows: [
    { chars: /[\w.-]/, min: 0, max: 27 },
    { chars: /["']/, min: 0, max: 1 },
    { chars: /\s/, min: 0, max: 5 },
    { chars: /[:=]/, min: 1, max: 1 },
  ],
  minEntropy: 3,
  accept: (secret) => !looksLikeCode(secret),
  samples: () => ({
    match: [
      `db_password = "${fakeSecret("g1", 20, MIXED)}"`,
      `client_secret: ${fakeSecret("g2", 32, MIXED)}`,
      `API_KEY=${fakeSecret("g3", 32)}`,
    ],
    noMatch: [
      "password = process.env.DB_PASSWORD",
      "token = getToken()",
      'password: "changeme"',
      "secret_key = REPLACE_ME",
      "api_key: ${{ secrets.API_KEY }}",
      "tokenizer = AutoTokenizer.from_pretrained(name)",
      "password_min_length = 12",
      "auth_key_path = '/etc/keys/auth.pem'",
    ],
  }),
};
