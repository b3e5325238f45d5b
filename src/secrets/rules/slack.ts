/** Slack: bot, user, app and configuration tokens; incoming webhooks. */

import { BASE64, fakeSecret, type PatternRule } from "../rule.ts";

const digits = (seed: string, n: number) => fakeSecret(seed, n, "0123456789");

/** Slack token (xoxb-, xoxp-, xoxa-, xoxo-, xoxs-, xoxr-, xoxe-). */
export const slackToken: PatternRule = {
  id: "slack-token",
  description: "Slack API token (xoxb-, xoxp-, xoxa-, xoxo-, xoxs-, xoxr-, xoxe-).",
  keywords: ["xox"],
  pattern: /xox[abposre]-[A-Za-z0-9-]{10,255}/y,
  notBefore: /[A-Za-z0-9-]/,
  notAfter: /[A-Za-z0-9_-]/,
  follows: [{ chars: /[A-Za-z0-9-]/, min: 12 }],
  samples: () => ({
    match: [
      `SLACK_BOT_TOKEN=xoxb-${digits("s1", 12)}-${digits("s2", 13)}-${fakeSecret("s3", 24)}`,
      `token: "xoxp-${digits("s4", 12)}-${digits("s5", 12)}-${digits("s6", 13)}-${
        fakeSecret("s7", 32, "0123456789abcdef")
      }"`,
    ],
    noMatch: ["xoxz-123456789012", "xoxb-12345"],
  }),
};

/** Slack incoming webhook URL: the secret is the path after the host. */
export const slackWebhook: PatternRule = {
  id: "slack-webhook",
  description: "Slack incoming webhook (the path after hooks.slack.com/services/).",
  keywords: ["hooks.slack.com/"],
  pattern: /hooks\.slack\.com\/(?:services|workflows|triggers)\/(?<secret>[A-Za-z0-9+\/]{20,120})/y,
  notBefore: /[A-Za-z0-9+\/]/,
  // The shortest: services/ (9) and 20.
  follows: [{ chars: /[A-Za-z0-9+\/]/, min: 29 }],
  samples: () => ({
    match: [
      `url = "https://hooks.slack.com/services/T${fakeSecret("sw1", 8)}/B${fakeSecret("sw2", 8)}/${
        fakeSecret("sw3", 24)
      }"`,
      `SLACK_WEBHOOK=https://hooks.slack.com/workflows/${fakeSecret("sw4", 40, BASE64)}`,
    ],
    noMatch: ["https://hooks.slack.com/services/", "see https://api.slack.com/messaging/webhooks"],
  }),
};
