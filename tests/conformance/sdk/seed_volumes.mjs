// Seed the named volume the upstream PVC tests (01d, 01e, 01f) read, as
// upstream's CI does with `docker volume create` and a helper container:
// opensandbox-e2e-pvc-test holding marker.txt ("pvc-marker-data") and
// datasets/train/marker.txt ("pvc-subpath-marker"). Done through the API,
// with a sandbox that mounts the volume (createIfNotExists, kept after the
// sandbox ends), so it does not depend on where the engine keeps volumes.
// Exit 0 once seeded, 1 (with the reason) otherwise.
import { ConnectionConfig, Sandbox } from "@alibaba-group/opensandbox";

const connectionConfig = new ConnectionConfig({
  domain: process.env.OPENSANDBOX_TEST_DOMAIN,
  protocol: "http",
  apiKey: process.env.OPENSANDBOX_TEST_API_KEY,
  requestTimeoutSeconds: 180,
});

let sbx = null;
try {
  sbx = await Sandbox.create({
    connectionConfig,
    image: process.env.OPENSANDBOX_SANDBOX_DEFAULT_IMAGE ?? "host",
    timeoutSeconds: 120,
    readyTimeoutSeconds: 60,
    entrypoint: ["tail", "-f", "/dev/null"],
    volumes: [{ name: "seed", pvc: { claimName: "opensandbox-e2e-pvc-test" }, mountPath: "/mnt/seed", readOnly: false }],
  });
  const r = await sbx.commands.run(
    "mkdir -p /mnt/seed/datasets/train && echo pvc-marker-data > /mnt/seed/marker.txt && " +
      "echo pvc-subpath-marker > /mnt/seed/datasets/train/marker.txt && chmod -R a+rwX /mnt/seed",
  );
  if (r.error) throw new Error(`seeding command failed: ${JSON.stringify(r.error)}`);
  console.log("seeded the named volume opensandbox-e2e-pvc-test");
} catch (e) {
  console.log(`could not seed the named volume opensandbox-e2e-pvc-test: ${e.message}`);
  process.exitCode = 1;
} finally {
  if (sbx) {
    try {
      await sbx.kill();
    } catch {
      // sdk.sh's trap ends what is left
    }
  }
}
