/** GitLab personal, project and group access tokens. */

import { fakeSecret, type PatternRule } from "../rule.ts";

/** GitLab access token (glpat-). */
export const gitlabToken: PatternRule = {
  id: "gitlab-token",
  description: "GitLab personal/project/group access token (glpat-…).",
  keywords: ["glpat-"],
  pattern: /glpat-[A-Za-z0-9_-]{20,64}/y,
  notBefore: /[A-Za-z0-9_-]/,
  notAfter: /[A-Za-z0-9_-]/,
  follows: [{ chars: /[A-Za-z0-9_-]/, min: 20 }],
  samples: () => ({
    match: [
      `GITLAB_TOKEN=glpat-${fakeSecret("gl1", 20)}`,
      `private_token: "glpat-${fakeSecret("gl2", 26)}"`,
    ],
    noMatch: [`glpat-${fakeSecret("gl3", 19)}`, "glpat-xxxxxxxxxxxxxxxxxxxx"],
  }),
};
