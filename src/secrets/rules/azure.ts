/** Azure storage account keys in connection strings. */

import { BASE64, fakeSecret, type PatternRule } from "../rule.ts";

/** The AccountKey of an Azure storage connection string. */
export const azureStorageKey: PatternRule = {
  id: "azure-storage-key",
  description: "Azure storage account key (AccountKey=… in a connection string).",
  keywords: ["accountkey="],
  ignoreCase: true,
  follows: [{ chars: /[A-Za-z0-9+\/]/, min: 86 }],
  pattern: /AccountKey=(?<secret>[A-Za-z0-9+\/]{86}==)/iy,
  samples: () => ({
    match: [
      `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${
        fakeSecret("az1", 86, BASE64)
      }==;EndpointSuffix=core.windows.net`,
      `"AccountKey=${fakeSecret("az2", 86, BASE64)}=="`,
    ],
    noMatch: ["AccountKey=<key>", "AccountKey=;"],
  }),
};
