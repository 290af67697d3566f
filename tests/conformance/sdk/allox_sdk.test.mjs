// allox-cli's own checks with the official OpenSandbox JavaScript SDK
// (@alibaba-group/opensandbox), run by tests/conformance/sdk.sh beside the
// upstream e2e suite, against the same private allox-engine and with the
// same environment (OPENSANDBOX_TEST_DOMAIN, OPENSANDBOX_TEST_API_KEY,
// OPENSANDBOX_SANDBOX_DEFAULT_IMAGE). They cover:
//  - what an excluded upstream test checks besides the assertion that made
//    it an exception (sdk.sh lists each exception and names the test here
//    that takes over: "allox 01 ...", "allox 01a ...", "allox 01aa ...",
//    "allox cv ...");
//  - what upstream does not check: background logs read with cursors, Range
//    downloads, a large streamed upload and download with checksums, and
//    X-Request-ID on the lifecycle and execd planes.
// ALLOX_SDK_NAMES_RESOLVE_TO: set by sdk.sh when the engine resolves pypi.org
// and www.github.com from a hosts file (no internet): the address they get.
import { createHash } from "node:crypto";

import { afterAll, beforeAll, expect, test } from "vitest";

import {
  ConnectionConfig,
  DEFAULT_EGRESS_PORT,
  DEFAULT_EXECD_PORT,
  Sandbox,
  SandboxApiException,
} from "@alibaba-group/opensandbox";

const DOMAIN = process.env.OPENSANDBOX_TEST_DOMAIN;
const API_KEY = process.env.OPENSANDBOX_TEST_API_KEY;
const IMAGE = process.env.OPENSANDBOX_SANDBOX_DEFAULT_IMAGE ?? "host";

function config(extra = {}) {
  return new ConnectionConfig({
    domain: DOMAIN,
    protocol: "http",
    apiKey: API_KEY,
    requestTimeoutSeconds: 180,
    ...extra,
  });
}

function create(opts = {}) {
  return Sandbox.create({
    connectionConfig: opts.connectionConfig ?? config(),
    image: IMAGE,
    timeoutSeconds: 10 * 60,
    readyTimeoutSeconds: 60,
    entrypoint: ["tail", "-f", "/dev/null"],
    healthCheckPollingInterval: 200,
    ...opts,
  });
}

async function killQuietly(sbx) {
  if (!sbx) return;
  try {
    await sbx.kill();
  } catch {
    // best effort: sdk.sh's trap ends whatever is left
  }
}

function stdoutOf(exec) {
  return exec.logs.stdout.map((m) => m.text).join("\n").trim();
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let sandbox = null;

beforeAll(async () => {
  sandbox = await create({ metadata: { tag: "allox-sdk" }, env: { ALLOX_SDK: "1" } });
}, 5 * 60_000);

afterAll(async () => {
  await killQuietly(sandbox);
}, 5 * 60_000);

// Upstream "01 sandbox lifecycle, health, endpoint, metrics, renew, connect"
// without assertEndpointHasPort(endpoint, 44772): the metrics are the next test.
test("allox 01 lifecycle, health, endpoint, renew, connect (upstream 01 without its Docker port)", async () => {
  expect(typeof sandbox.id).toBe("string");
  expect(await sandbox.isHealthy()).toBe(true);

  const info = await sandbox.getInfo();
  expect(info.id).toBe(sandbox.id);
  expect(info.status.state).toBe("Running");
  expect(info.entrypoint).toEqual(["tail", "-f", "/dev/null"]);
  expect(info.metadata?.tag).toBe("allox-sdk");

  // What upstream's assertEndpointHasPort checks, except which port: a
  // host:port without a scheme or path (the agent's loopback listener).
  const ep = await sandbox.getEndpoint(DEFAULT_EXECD_PORT);
  expect(typeof ep.endpoint).toBe("string");
  expect(ep.endpoint).toMatch(/^127\.0\.0\.1:\d+$/);
  expect(Number(ep.endpoint.split(":")[1])).toBeGreaterThan(0);
  expect(ep.headers?.["X-EXECD-ACCESS-TOKEN"]).toBeTruthy();
  // ... and it is the execd the SDK talks to.
  const ping = await fetch(`http://${ep.endpoint}/ping`, { headers: ep.headers });
  expect(ping.status).toBe(200);

  const renewResp = await sandbox.renew(20 * 60);
  expect(renewResp.expiresAt).toBeInstanceOf(Date);
  expect(renewResp.expiresAt.getTime()).toBeGreaterThan(Date.now() + 19 * 60_000);

  const sandbox2 = await Sandbox.connect({ sandboxId: sandbox.id, connectionConfig: sandbox.connectionConfig });
  expect(sandbox2.id).toBe(sandbox.id);
  expect(await sandbox2.isHealthy()).toBe(true);
  const r = await sandbox2.commands.run("echo connect-ok");
  expect(r.error).toBeUndefined();
  expect(r.logs.stdout[0]?.text).toBe("connect-ok");
});

test("allox 01m metrics (upstream 01's getMetrics)", async () => {
  const metrics = await sandbox.getMetrics();
  expect(metrics.cpuCount).toBeGreaterThan(0);
  expect(metrics.cpuUsedPercentage).toBeGreaterThanOrEqual(0);
  expect(metrics.cpuUsedPercentage).toBeLessThanOrEqual(100);
  expect(metrics.memoryTotalMiB).toBeGreaterThan(0);
  expect(metrics.memoryUsedMiB).toBeGreaterThanOrEqual(0);
  expect(metrics.memoryUsedMiB).toBeLessThanOrEqual(metrics.memoryTotalMiB);
  expect(Math.abs(Date.now() - metrics.timestamp)).toBeLessThan(120_000);
});

// Upstream 01a and 01aa decide allowed/denied with `curl -I https://NAME`,
// which needs the internet. Here the same policy is judged by name
// resolution inside the sandbox (the policy's resolver answers allowed names
// only), which needs none.
async function resolves(sbx, name) {
  const r = await sbx.commands.run(`getent hosts ${name}`);
  return r.error === undefined && stdoutOf(r).length > 0;
}

async function checkPolicyByName(sbx) {
  const initial = await sbx.getEgressPolicy();
  expect(initial.defaultAction).toBe("deny");
  expect(initial.egress?.some((r) => r.target === "pypi.org" && r.action === "allow")).toBe(true);

  expect(await resolves(sbx, "pypi.org")).toBe(true);
  if (process.env.ALLOX_SDK_NAMES_RESOLVE_TO) {
    const r = await sbx.commands.run("getent hosts pypi.org");
    expect(stdoutOf(r)).toContain(process.env.ALLOX_SDK_NAMES_RESOLVE_TO);
  }
  expect(await resolves(sbx, "www.github.com")).toBe(false);

  await sbx.patchEgressRules([
    { action: "allow", target: "www.github.com" },
    { action: "deny", target: "pypi.org" },
  ]);
  const patched = await sbx.getEgressPolicy();
  expect(patched.egress?.some((r) => r.target === "www.github.com" && r.action === "allow")).toBe(true);
  expect(patched.egress?.some((r) => r.target === "pypi.org" && r.action === "deny")).toBe(true);
  expect(await resolves(sbx, "www.github.com")).toBe(true);
  expect(await resolves(sbx, "pypi.org")).toBe(false);
}

const POLICY = { defaultAction: "deny", egress: [{ action: "allow", target: "pypi.org" }] };

test("allox 01a networkPolicy by name resolution (upstream 01a without the internet)", async () => {
  const sbx = await create({ timeoutSeconds: 2 * 60, networkPolicy: POLICY });
  try {
    await checkPolicyByName(sbx);
  } finally {
    await killQuietly(sbx);
  }
}, 3 * 60_000);

test("allox 01aa networkPolicy via server proxy (upstream 01aa without the internet)", async () => {
  const sbx = await create({
    connectionConfig: config({ useServerProxy: true }),
    timeoutSeconds: 2 * 60,
    networkPolicy: POLICY,
  });
  try {
    const egress = await sbx.getEndpoint(DEFAULT_EGRESS_PORT);
    expect(egress.endpoint).toContain(`/sandboxes/${sbx.id}/proxy/${DEFAULT_EGRESS_PORT}`);
    const execd = await sbx.getEndpoint(DEFAULT_EXECD_PORT);
    expect(execd.endpoint).toContain(`/sandboxes/${sbx.id}/proxy/${DEFAULT_EXECD_PORT}`);
    await checkPolicyByName(sbx);
  } finally {
    await killQuietly(sbx);
  }
}, 3 * 60_000);

// The credential-vault tests need a transparent MITM credential proxy the
// engine does not have: a client that asks for one is told so, by name,
// instead of getting a sandbox without it.
test("allox cv credentialProxy is refused by name (the credential-vault tests' exception)", async () => {
  let err = null;
  try {
    const sbx = await create({ credentialProxy: { enabled: true } });
    await killQuietly(sbx);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(SandboxApiException);
  expect(err.statusCode).toBe(400);
  expect(err.message).toContain("credentialProxy");
});

test("allox logs: background command logs read with cursors", async () => {
  const n = 60;
  const exec = await sandbox.commands.run(
    `sh -c 'i=1; while [ $i -le ${n} ]; do echo bg-line-$i; i=$((i+1)); sleep 0.02; done'`,
    { background: true },
  );
  expect(exec.id).toBeTruthy();

  let text = "";
  let cursor = undefined;
  let polls = 0;
  let finished = false;
  for (let i = 0; i < 200 && !finished; i++) {
    const status = await sandbox.commands.getCommandStatus(exec.id);
    finished = status.running === false; // read after this, the log is complete
    const logs = await sandbox.commands.getBackgroundCommandLogs(exec.id, cursor);
    expect(typeof logs.cursor).toBe("number");
    if (cursor !== undefined) expect(logs.cursor).toBeGreaterThanOrEqual(cursor);
    if (logs.content.length > 0) polls++;
    text += logs.content;
    cursor = logs.cursor;
    if (!finished) await sleep(100);
  }
  expect(finished).toBe(true);
  // Each line exactly once, in order, however the polls cut the stream.
  const expected = Array.from({ length: n }, (_, k) => `bg-line-${k + 1}`).join("\n") + "\n";
  expect(text).toBe(expected);
  expect(polls).toBeGreaterThan(1);
  // From the tail cursor: nothing new, and the cursor stays.
  const tail = await sandbox.commands.getBackgroundCommandLogs(exec.id, cursor);
  expect(tail.content).toBe("");
  expect(tail.cursor).toBe(cursor);
  // From the start again: the whole log.
  const again = await sandbox.commands.getBackgroundCommandLogs(exec.id, 0);
  expect(again.content).toBe(expected);
  const status = await sandbox.commands.getCommandStatus(exec.id);
  expect(status.running).toBe(false);
  expect(status.exitCode).toBe(0);
}, 60_000);

test("allox range: Range downloads", async () => {
  const path = `/tmp/allox-range-${Date.now()}.bin`;
  const data = new Uint8Array(1024);
  for (let i = 0; i < data.length; i++) data[i] = (i * 7 + 3) & 0xff;
  await sandbox.files.writeFiles([{ path, data }]);

  expect(await sandbox.files.readBytes(path)).toEqual(data);
  expect(await sandbox.files.readBytes(path, { range: "bytes=0-9" })).toEqual(data.slice(0, 10));
  expect(await sandbox.files.readBytes(path, { range: "bytes=100-355" })).toEqual(data.slice(100, 356));
  expect(await sandbox.files.readBytes(path, { range: "bytes=1000-" })).toEqual(data.slice(1000));
  expect(await sandbox.files.readBytes(path, { range: "bytes=-16" })).toEqual(data.slice(1008));
  // A range past the end is clipped to the file.
  expect(await sandbox.files.readBytes(path, { range: "bytes=1020-5000" })).toEqual(data.slice(1020));

  const parts = [];
  for await (const chunk of sandbox.files.readBytesStream(path, { range: "bytes=512-" })) parts.push(chunk);
  expect(new Uint8Array(Buffer.concat(parts))).toEqual(data.slice(512));

  // Unsatisfiable: 416, surfaced as an API error.
  let err = null;
  try {
    await sandbox.files.readBytes(path, { range: "bytes=4096-" });
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(SandboxApiException);
  expect(err.statusCode).toBe(416);
  await sandbox.files.deleteFiles([path]);
});

test("allox upload: 64 MiB streamed upload and download with sha256", async () => {
  const path = `/tmp/allox-big-${Date.now()}.bin`;
  const chunkSize = 1 << 20;
  const chunks = 64;
  const up = createHash("sha256");
  let seed = 0x9e3779b9;
  let sent = 0;
  const stream = new ReadableStream({
    pull(controller) {
      if (sent === chunks) {
        controller.close();
        return;
      }
      const buf = Buffer.allocUnsafe(chunkSize);
      for (let i = 0; i < chunkSize; i += 4) {
        seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
        buf.writeUInt32LE(seed, i);
      }
      up.update(buf);
      sent++;
      controller.enqueue(new Uint8Array(buf.buffer, buf.byteOffset, buf.length));
    },
  });
  await sandbox.files.writeFiles([{ path, data: stream, mode: 600 }]);
  expect(sent).toBe(chunks);
  const want = up.digest("hex");

  const info = await sandbox.files.getFileInfo([path]);
  expect(info[path]?.size).toBe(chunks * chunkSize);
  expect(info[path]?.mode).toBe(600);
  const inside = await sandbox.commands.run(`sha256sum ${path}`);
  expect(inside.error).toBeUndefined();
  expect(stdoutOf(inside).split(/\s+/)[0]).toBe(want);

  const down = createHash("sha256");
  let got = 0;
  for await (const chunk of sandbox.files.readBytesStream(path)) {
    down.update(chunk);
    got += chunk.length;
  }
  expect(got).toBe(chunks * chunkSize);
  expect(down.digest("hex")).toBe(want);
  await sandbox.files.deleteFiles([path]);
}, 3 * 60_000);

test("allox request-id: X-Request-ID is echoed by the engine and the agent", async () => {
  const rid = `allox-sdk-${Date.now()}`;
  const headers = { "OPEN-SANDBOX-API-KEY": API_KEY, "X-Request-ID": rid };

  // Lifecycle, success and error: the client's id comes back.
  let res = await fetch(`http://${DOMAIN}/v1/sandboxes/${sandbox.id}`, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get("x-request-id")).toBe(rid);
  res = await fetch(`http://${DOMAIN}/v1/sandboxes/missing-${rid}`, { headers });
  expect(res.status).toBe(404);
  expect(res.headers.get("x-request-id")).toBe(rid);
  // Without one the engine makes one up (a UUID, as the spec types it).
  res = await fetch(`http://${DOMAIN}/v1/sandboxes/${sandbox.id}`, { headers: { "OPEN-SANDBOX-API-KEY": API_KEY } });
  expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

  // Execd, success and error, straight at the endpoint...
  const ep = await sandbox.getEndpoint(DEFAULT_EXECD_PORT);
  res = await fetch(`http://${ep.endpoint}/ping`, { headers: { ...ep.headers, "X-Request-ID": rid } });
  expect(res.status).toBe(200);
  expect(res.headers.get("x-request-id")).toBe(rid);
  res = await fetch(`http://${ep.endpoint}/files/info?path=/nonexistent-${rid}`, {
    headers: { ...ep.headers, "X-Request-ID": rid },
  });
  expect(res.status).toBe(404);
  expect(res.headers.get("x-request-id")).toBe(rid);

  // ... and through the SDK, which sends the connection's headers to execd
  // too and reports the id of a failed call.
  const connected = await Sandbox.connect({
    sandboxId: sandbox.id,
    connectionConfig: config({ headers: { "X-Request-ID": rid } }),
  });
  let err = null;
  try {
    await connected.files.readFile(`/nonexistent-${rid}`);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(SandboxApiException);
  expect(err.statusCode).toBe(404);
  expect(err.requestId).toBe(rid);
});
