/**
 * `deno task lb:check`: nginx round-robin in front of two devserver HTTP
 * instances over their own checkouts of one repository, sharing one cursor
 * key file; every answer of an interleaved stream is compared with a
 * single instance's, and a listing cursor issued by one instance is
 * redeemed by the other. `--no-shared-key` runs the same without the shared
 * key, to show the cross-instance redeem then fails. Exit 0 when every
 * check holds, 1 otherwise.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { lbVerdict, runLbCheck } from "./lib/lb_check.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { "no-shared-key": { type: "boolean", default: false } },
});
const report = await runLbCheck({
  shareKey: !values["no-shared-key"],
  log: (line) => console.log(line),
});
const problems = lbVerdict(report);
console.log(
  `\n${report.requests} requests; served per upstream: ${JSON.stringify(report.perUpstream)}; ` +
    `cursors redeemed across instances: ${report.crossRedeems.length}`,
);
for (const problem of problems) console.log(`FAIL ${problem}`);
console.log(problems.length === 0 ? "lb:check: all answers equal the single instance's" : "");
Deno.exit(problems.length === 0 ? 0 : 1);
