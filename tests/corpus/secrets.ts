/**
 * Redaction negatives: strings that look like secrets to a careless rule and
 * must pass through untouched (git SHAs, UUIDs, hashes in lockfiles, base64
 * images, placeholders, documented test vectors, code). The positives are
 * the rules' own samples (`src/secrets/rules/*.ts`, at least two each).
 */

const hex = (seed: number, n: number) => {
  let s = seed >>> 0, out = "";
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out += "0123456789abcdef"[(s >>> 8) % 16];
  }
  return out;
};

export const SECRET_NEGATIVES: readonly string[] = [
  `commit ${hex(1, 40)}`,
  `Merge: ${hex(2, 7)} ${hex(3, 7)}`,
  `git checkout ${hex(4, 40)}`,
  `id: ${hex(5, 8)}-${hex(6, 4)}-4${hex(7, 3)}-a${hex(8, 3)}-${hex(9, 12)}`,
  `"uuid": "${hex(10, 8)}-${hex(11, 4)}-${hex(12, 4)}-${hex(13, 4)}-${hex(14, 12)}"`,
  `  integrity sha512-${"q1Z9hT4nKp0vL2mR8sW3yB6cF5jD7gH1aE4uN0oI2tY9rM3kP6wS8zV5bX7qCe"}==`,
  `"resolved": "https://registry.npmjs.org/zod/-/zod-4.2.0.tgz", "integrity": "sha512-${
    hex(15, 86)
  }=="`,
  `checksum = "${hex(16, 64)}"`,
  `sha256: ${hex(17, 64)}`,
  `ETag: "${hex(18, 32)}"`,
  `<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==">`,
  "background: url(data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7);",
  'password = "changeme"',
  "password: ${DB_PASSWORD}",
  "DB_PASSWORD=<your-password>",
  "api_key: REPLACE_ME",
  "API_KEY=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
  "token: ${{ secrets.GITHUB_TOKEN }}",
  "secret: {{ .Values.secret }}",
  "export OPENAI_API_KEY=sk-...",
  "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
  "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
  "password = process.env.DB_PASSWORD",
  "const token = await getToken(user);",
  "tokenizer = AutoTokenizer.from_pretrained(model_name)",
  "self.secret_key = settings.SECRET_KEY",
  "password_min_length = 12",
  "max_tokens: 4096",
  "token_type: bearer",
  "primary_key = 'id'",
  "foreign_key: users.id",
  "if (password.length < 8) throw new Error('too short');",
  'secretName: "db-credentials"',
  "credentials: include",
  "auth_key_path = '/etc/keys/auth.pem'",
  "postgres://user:password@localhost:5432/app",
  "mysql://root:root@127.0.0.1/test",
  "https://github.com/denoland/deno/blob/main/README.md",
  "mongodb://localhost:27017/db",
  "Authorization: Bearer $TOKEN",
  "Authorization: Bearer <token>",
  "The Authorization header carries the credentials.",
  "-----BEGIN PUBLIC KEY-----",
  "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ\n-----END CERTIFICATE-----",
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl user@host",
  "eyJhbGciOiJIUzI1NiJ9 is the base64 of a JWT header",
  "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
  "pk_live_51H8abcdefghijklmnopqrstuv",
  "The npm_ prefix marks granular tokens.",
  "xoxb- tokens are bot tokens",
  "hf_hub_download(repo_id='gpt2', filename='config.json')",
  "AIza is the prefix of Google API keys",
  "const SKIP_TESTS = process.env.SKIP_TESTS === '1';",
  "SG.example.key",
  "https://hooks.slack.com/services/YOUR/WEBHOOK/URL",
  "https://discord.com/api/webhooks/{id}/{token}",
  "AccountKey=<storage-account-key>",
  "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
  "test vector: key = 000102030405060708090a0b0c0d0e0f",
  'HMAC-SHA256(key="key", msg="The quick brown fox") = f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8',
  'md5("") = d41d8cd98f00b204e9800998ecf8427e',
  "version: 1.2.3-beta.4+build.5678",
  "The quick brown fox jumps over the lazy dog.",
  "const apiKeyHeader = 'x-api-key';",
];
