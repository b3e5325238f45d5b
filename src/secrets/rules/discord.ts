/** Discord webhook URLs: the token after /api/webhooks/<id>/. */

import { fakeSecret, type PatternRule } from "../rule.ts";

const URLSAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

/** The token of a Discord webhook URL. */
export const discordWebhook: PatternRule = {
  id: "discord-webhook",
  description: "The token of a Discord webhook URL (/api/webhooks/<id>/<token>).",
  keywords: ["/api/webhooks/"],
  pattern: /\/api\/webhooks\/[0-9]{17,20}\/(?<secret>[A-Za-z0-9_-]{60,68})/y,
  notBefore: /[A-Za-z0-9_-]/,
  follows: [
    { chars: /[0-9]/, min: 17, max: 20 },
    { literal: "/" },
    { chars: /[A-Za-z0-9_-]/, min: 60 },
  ],
  samples: () => ({
    match: [
      `https://discord.com/api/webhooks/${fakeSecret("d1", 18, "0123456789")}/${
        fakeSecret("d2", 68, URLSAFE)
      }`,
      `DISCORD_HOOK="https://discordapp.com/api/webhooks/${fakeSecret("d3", 19, "0123456789")}/${
        fakeSecret("d4", 64, URLSAFE)
      }"`,
    ],
    noMatch: ["https://discord.com/api/webhooks/123/abc", "POST /api/webhooks/{id}/{token}"],
  }),
};
