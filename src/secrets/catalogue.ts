/**
 * The secret rules, in priority order: where two rules find overlapping
 * secrets, the earlier one's label wins, so specific formats come before the
 * generic ones (Anthropic before OpenAI's `sk-`, every token before the
 * generic assignment rule, JWTs before `Authorization` headers).
 *
 * @module
 */

import type { SecretRule } from "./rule.ts";
import { privateKey } from "./rules/private_key.ts";
import { anthropicApiKey } from "./rules/anthropic.ts";
import { openaiApiKey } from "./rules/openai.ts";
import { githubFineGrainedPat, githubToken } from "./rules/github.ts";
import { gitlabToken } from "./rules/gitlab.ts";
import { slackToken, slackWebhook } from "./rules/slack.ts";
import { stripeSecretKey } from "./rules/stripe.ts";
import { googleApiKey } from "./rules/google.ts";
import { npmrcAuth, npmToken } from "./rules/npm.ts";
import { huggingfaceToken } from "./rules/huggingface.ts";
import { awsAccessKeyId, awsSecretAccessKey } from "./rules/aws.ts";
import { azureStorageKey } from "./rules/azure.ts";
import { twilioApiKey } from "./rules/twilio.ts";
import { sendgridApiKey } from "./rules/sendgrid.ts";
import { discordWebhook } from "./rules/discord.ts";
import { jwt } from "./rules/jwt.ts";
import { urlCredentials } from "./rules/url_credentials.ts";
import { httpAuthorization } from "./rules/http_authorization.ts";
import { genericSecret } from "./rules/generic.ts";

/** Every built-in rule, most specific first. */
export const SECRET_RULES: readonly SecretRule[] = [
  privateKey,
  anthropicApiKey,
  openaiApiKey,
  githubToken,
  githubFineGrainedPat,
  gitlabToken,
  slackToken,
  slackWebhook,
  stripeSecretKey,
  googleApiKey,
  npmToken,
  npmrcAuth,
  huggingfaceToken,
  awsAccessKeyId,
  awsSecretAccessKey,
  azureStorageKey,
  twilioApiKey,
  sendgridApiKey,
  discordWebhook,
  jwt,
  urlCredentials,
  httpAuthorization,
  genericSecret,
];
