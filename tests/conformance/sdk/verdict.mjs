// The verdict of tests/conformance/sdk.sh on a vitest JSON report:
//   node verdict.mjs RESULTS.json LISTS
// LISTS has one line per listed test, tab-separated: KIND FILE TITLE REASON
// [MATCH], KIND being "exclude" (not run: the reason says why and which of
// our tests checks the rest) or "pending" (runs and must fail, with MATCH in
// its first failure message, until the work the reason names lands; passing
// is an error, so the list stays true).
// Every other test of every file must pass; every listed test must exist.
// Prints one line per test and a summary; exits 1 on any failure.
import { readFileSync } from "node:fs";
import { basename } from "node:path";

const [resultsFile, listsFile] = process.argv.slice(2);
const report = JSON.parse(readFileSync(resultsFile, "utf8"));
const listed = new Map();
for (const line of readFileSync(listsFile, "utf8").split("\n")) {
  if (!line.trim()) continue;
  const [kind, file, title, reason, match] = line.split("\t");
  listed.set(`${file}\t${title}`, { kind, reason, match, seen: false });
}

let bad = 0;
const counts = { passed: 0, excluded: 0, pending: 0, skipped: 0 };
function problem(msg) {
  bad++;
  console.log(`FAIL: ${msg}`);
}

for (const file of report.testResults ?? []) {
  const fname = basename(file.name);
  // A file that failed to load or whose hooks failed has a message.
  if (file.message) problem(`${fname}: ${file.message.split("\n")[0]}`);
  if ((file.assertionResults ?? []).length === 0) problem(`${fname}: no tests`);
  for (const t of file.assertionResults ?? []) {
    const key = `${fname}\t${t.title}`;
    const entry = listed.get(key);
    const first = (t.failureMessages ?? [])[0]?.split("\n")[0] ?? "";
    const label = `${fname} > ${t.title}`;
    if (entry) entry.seen = true;
    if (entry?.kind === "exclude") {
      if (t.status === "passed" || t.status === "failed") problem(`${label}: excluded but it ran`);
      else {
        counts.excluded++;
        console.log(`excluded: ${label} (${entry.reason})`);
      }
    } else if (entry?.kind === "pending") {
      if (t.status === "failed" && entry.match && !first.includes(entry.match)) {
        problem(`${label}: pending on ${entry.reason} but fails otherwise: ${first}`);
      } else if (t.status === "failed") {
        counts.pending++;
        console.log(`pending: ${label} (${entry.reason}): ${first}`);
      } else if (t.status === "passed") {
        problem(`${label}: passes now; remove it from the pending list of sdk.sh (${entry.reason})`);
      } else problem(`${label}: pending but ${t.status}`);
    } else if (t.status === "passed") {
      counts.passed++;
      console.log(`ok: ${label}`);
    } else {
      problem(`${label}: ${t.status}${first ? `: ${first}` : ""}`);
    }
  }
}
for (const [key, entry] of listed) {
  if (!entry.seen) problem(`listed but not in the suite: ${key.replace("\t", " > ")} (${entry.kind})`);
}
console.log(
  `${counts.passed} passed, ${counts.excluded} excluded, ${counts.pending} pending, ${bad} failed`,
);
process.exit(bad === 0 ? 0 : 1);
