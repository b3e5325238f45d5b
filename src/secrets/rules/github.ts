/** GitHub: classic tokens (ghp_, gho_, ghu_, ghs_, ghr_) and fine-grained personal access tokens. */

import { fakeSecret, type PatternRule } from "../rule.ts";

/** GitHub classic token. */
export const githubToken: PatternRule = {
  id: "github-token",
  description: "GitHub token: ghp_ (personal), gho_ (OAuth), ghu_ / ghs_ (app), ghr_ (refresh).",
  keywords: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
  pattern: /gh[pousr]_[A-Za-z0-9]{36,255}/y,
  notBefore: /[A-Za-z0-9]/,
  notAfter: /[A-Za-z0-9_]/,
  follows: [{ chars: /[A-Za-z0-9]/, min: 36 }],
  samples: () => ({
    match: [
      `GITHUB_TOKEN=ghp_${fakeSecret("gh1", 36)}`,
      `git clone https://x-access-token:ghs_${fakeSecret("gh2", 36)}@github.com/o/r.git`,
    ],
    noMatch: [`ghp_${fakeSecret("gh3", 35)}`, "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"],
  }),
};

/** GitHub fine-grained personal access token. */
export const githubFineGrainedPat: PatternRule = {
  id: "github-fine-grained-pat",
  description: "GitHub fine-grained personal access token (github_pat_…).",
  keywords: ["github_pat_"],
  pattern: /github_pat_[A-Za-z0-9_]{22,255}/y,
  notBefore: /[A-Za-z0-9_]/,
  notAfter: /[A-Za-z0-9_]/,
  follows: [{ chars: /[A-Za-z0-9_]/, min: 22 }],
  samples: () => ({
    match: [
      `token: github_pat_${fakeSecret("ghf1", 22)}_${fakeSecret("ghf2", 59)}`,
      `"github_pat_${fakeSecret("ghf3", 22)}_${fakeSecret("ghf4", 59)}"`,
    ],
    noMatch: ["github_pat_", "the github_pat_ prefix marks fine-grained tokens"],
  }),
};
