/** PEM private-key blocks of every kind (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP), whole block. */

import { BASE64, type BlockRule, fakeSecret } from "../rule.ts";

const body = (seed: string, lines: number) =>
  Array.from({ length: lines }, (_, i) => fakeSecret(seed + i, 64, BASE64)).join("\n");

/** A private key in PEM armour: the whole block, markers included. */
export const privateKey: BlockRule = {
  id: "private-key",
  description: "A PEM private key block (any algorithm, encrypted or not, PGP included).",
  keywords: ["-----BEGIN "],
  begin: /-----BEGIN (?:[A-Z0-9]{1,16} ){0,3}PRIVATE KEY(?: BLOCK)?-----/y,
  end: /-----END (?:[A-Z0-9]{1,16} ){0,3}PRIVATE KEY(?: BLOCK)?-----/y,
  endKeyword: "-----END ",
  maxBody: 64 * 1024,
  samples: () => ({
    match: [
      `-----BEGIN RSA PRIVATE KEY-----\n${body("rsa", 6)}\n-----END RSA PRIVATE KEY-----`,
      `key = """-----BEGIN OPENSSH PRIVATE KEY-----\n${
        body("ssh", 4)
      }\n-----END OPENSSH PRIVATE KEY-----"""`,
      `"private_key": "-----BEGIN PRIVATE KEY-----\\n${fakeSecret("gcp", 64, BASE64)}\\n${
        fakeSecret("gcp2", 40, BASE64)
      }==\\n-----END PRIVATE KEY-----\\n",`,
      `-----BEGIN EC PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,${
        fakeSecret("iv", 32, "0123456789ABCDEF")
      }\n\n${body("ec", 3)}\n-----END EC PRIVATE KEY-----`,
      `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${
        body("pgp", 5)
      }\n-----END PGP PRIVATE KEY BLOCK-----`,
    ],
    noMatch: [
      `-----BEGIN PUBLIC KEY-----\n${body("pub", 4)}\n-----END PUBLIC KEY-----`,
      `-----BEGIN CERTIFICATE-----\n${body("cert", 4)}\n-----END CERTIFICATE-----`,
      "The file must start with -----BEGIN and the key type.",
    ],
  }),
};
