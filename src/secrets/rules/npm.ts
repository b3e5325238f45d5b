/** npm: access tokens (npm_) and `_authToken` / `_auth` lines of .npmrc files. */

import { BASE64, fakeSecret, type PatternRule } from "../rule.ts";

/** npm access token. */
export const npmToken: PatternRule = {
  id: "npm-token",
  description: "npm access token (npm_ followed by 36 characters).",
  keywords: ["npm_"],
  pattern: /npm_[A-Za-z0-9]{36}/y,
  notBefore: /[A-Za-z0-9]/,
  notAfter: /[A-Za-z0-9_]/,
  follows: [{ chars: /[A-Za-z0-9]/, min: 36 }],
  samples: () => ({
    match: [`NPM_TOKEN=npm_${fakeSecret("np1", 36)}`, `"token": "npm_${fakeSecret("np2", 36)}"`],
    noMatch: [`npm_${fakeSecret("np3", 35)}`, "npm_config_registry=https://registry.npmjs.org/"],
  }),
};

/** An `.npmrc` credential line: `_authToken=`, `_auth=` or `_password=`. */
export const npmrcAuth: PatternRule = {
  id: "npmrc-auth",
  description: "A credential in an .npmrc line (_authToken=, _auth=, _password=).",
  keywords: ["_authtoken", "_auth", "_password"],
  ignoreCase: true,
  notAfter: /[A-Za-z0-9]/,
  pattern: /_(?:authToken|auth|password)\s{0,5}=\s{0,5}["']?(?<secret>[^\s"']{8,512})/iy,
  samples: () => ({
    match: [
      `//registry.npmjs.org/:_authToken=${fakeSecret("nr1", 36)}`,
      `//npm.pkg.github.com/:_auth=${fakeSecret("nr2", 40, BASE64)}=`,
    ],
    noMatch: ["//registry.npmjs.org/:_authToken=${NPM_TOKEN}", "always-auth=true"],
  }),
};
