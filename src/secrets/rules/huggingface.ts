/** Hugging Face access tokens (hf_…). */

import { fakeSecret, type PatternRule } from "../rule.ts";

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Hugging Face user access token. */
export const huggingfaceToken: PatternRule = {
  id: "huggingface-token",
  description: "Hugging Face access token (hf_ followed by 34 or more letters).",
  keywords: ["hf_"],
  pattern: /hf_[A-Za-z0-9]{34,40}/y,
  notBefore: /[A-Za-z0-9]/,
  notAfter: /[A-Za-z0-9_]/,
  follows: [{ chars: /[A-Za-z0-9]/, min: 34 }],
  samples: () => ({
    match: [
      `HF_TOKEN=hf_${fakeSecret("hf1", 34, LETTERS)}`,
      `login(token="hf_${fakeSecret("hf2", 34, LETTERS)}")`,
    ],
    noMatch: [`hf_${fakeSecret("hf3", 20, LETTERS)}`, "self.hf_config_path_for_model_weights = x"],
  }),
};
