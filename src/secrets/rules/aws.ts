/** Amazon Web Services: access key ids and secret access keys in assignments. */

import { BASE64, fakeSecret, type PatternRule, UPPER_ALNUM } from "../rule.ts";

/** AWS access key id (long-term AKIA, temporary ASIA, and the other documented prefixes). */
export const awsAccessKeyId: PatternRule = {
  id: "aws-access-key-id",
  description: "AWS access key id: AKIA, ASIA, ABIA, ACCA or A3T… followed by 16 characters.",
  keywords: ["AKIA", "ASIA", "ABIA", "ACCA", "A3T"],
  pattern: /(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}/y,
  notBefore: /[A-Za-z0-9]/,
  notAfter: /[A-Za-z0-9]/,
  // After A3T one more of the class: 16 is the shortest for every keyword.
  follows: [{ chars: /[A-Z0-9]/, min: 16 }],
  samples: () => ({
    match: [
      `aws_access_key_id = AKIA${fakeSecret("aws1", 16, UPPER_ALNUM)}`,
      `"AccessKeyId": "ASIA${fakeSecret("aws2", 16, UPPER_ALNUM)}"`,
    ],
    noMatch: [
      `AKIA${fakeSecret("aws3", 15, UPPER_ALNUM)}`,
      `XAKIA${fakeSecret("aws4", 16, UPPER_ALNUM)}`,
      "AKIAIOSFODNN7EXAMPLE",
    ],
  }),
};

/** AWS secret access key: 40 base64 characters assigned to a secret-key name. */
export const awsSecretAccessKey: PatternRule = {
  id: "aws-secret-access-key",
  description:
    "AWS secret access key (40 characters) assigned to an aws_secret / secret_access_key name.",
  keywords: ["access_key", "accesskey", "access-key", "aws_secret"],
  ignoreCase: true,
  pattern:
    /(?:access[_-]?key|aws_secret(?:_key)?)["']?[\w.-]{0,20}?["']?\s{0,5}(?::=|=>|=|:)\s{0,5}["']?(?<secret>[A-Za-z0-9\/+]{40})/iy,
  notBefore: /[A-Za-z0-9\/+=]/,
  // aws_secret may go on with _key: 4 + 20 name characters at most.
  follows: [
    { chars: /["']/, min: 0, max: 1 },
    { chars: /[\w.-]/, min: 0, max: 24 },
    { chars: /["']/, min: 0, max: 1 },
    { chars: /\s/, min: 0, max: 5 },
    { chars: /[:=]/, min: 1, max: 1 },
  ],
  samples: () => ({
    match: [
      `aws_secret_access_key = ${fakeSecret("awss1", 40, BASE64)}`,
      `"SecretAccessKey": "${fakeSecret("awss2", 40, BASE64)}"`,
      `export AWS_SECRET_ACCESS_KEY="${fakeSecret("awss3", 40, BASE64)}"`,
    ],
    noMatch: [
      "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      "aws_secret_access_key = <your-secret-access-key>",
      "aws_secret_access_key: ${AWS_SECRET_ACCESS_KEY}",
    ],
  }),
};
