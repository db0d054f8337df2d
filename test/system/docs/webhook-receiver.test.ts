import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect } from "chai";

import { eventBody } from "../../../src/webhooks/delivery-worker.js";
import { newWebhookSecret, signatureHeader, SIGNATURE_HEADER } from "../../../src/webhooks/signature.js";
import { closedPort } from "../../helpers/service.js";

const ROOT = path.resolve(import.meta.dirname, "../../..");

/** The receiver the webhooks walk-through (docs/webhooks.md) writes with `cat > receiver.mjs <<'EOF'`. */
async function documentedReceiver(): Promise<string> {
  const page = await readFile(path.join(ROOT, "docs/webhooks.md"), "utf8");
  const found = /cat > receiver\.mjs <<'EOF'\n([\s\S]*?)\nEOF\n/.exec(page);
  expect(found, "docs/webhooks.md: the webhook receiver").to.not.equal(null);
  return found![1]!;
}

describe("docs/webhooks.md: the webhook receiver verifies the service's signatures, and refuses everything else", function () {
  this.timeout(30_000);
  let directory: string;
  let receiver: ChildProcess | undefined;
  let output = "";
  let url: string;
  const secret = newWebhookSecret();

  before(async function () {
    directory = await mkdtemp(path.join(tmpdir(), "hts-doc-receiver-"));
    await writeFile(path.join(directory, "receiver.mjs"), await documentedReceiver());
    const port = await closedPort();
    url = `http://127.0.0.1:${port}/hooks`;
    receiver = spawn(process.execPath, ["receiver.mjs"], {
      cwd: directory,
      env: { PATH: process.env.PATH, WEBHOOK_SECRET: secret, PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    receiver.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    receiver.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    const deadline = Date.now() + 10_000;
    while (!output.includes("receiving webhooks")) {
      if (Date.now() > deadline || receiver.exitCode !== null) throw new Error(`the receiver did not start:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });

  after(async function () {
    if (receiver && receiver.exitCode === null) {
      const exited = new Promise((resolve) => receiver!.once("exit", resolve));
      receiver.kill("SIGKILL");
      await exited;
    }
    await rm(directory, { recursive: true, force: true });
  });

  const event = {
    id: "5a0b7c8e-6a0e-4c55-9a3c-3f7c1f0f5d11",
    eventType: "operation.mined" as const,
    createdAt: new Date().toISOString(),
    payload: { id: "0d6f0a3c-5b1e-4a63-8a3e-1b2c3d4e5f60", kind: "launch", status: "mined" },
  };

  const post = (body: string, signature: string) =>
    fetch(url, { method: "POST", headers: { "content-type": "application/json", [SIGNATURE_HEADER]: signature }, body });

  it("answers 204 to an event signed as the service signs it, and prints it once however often it comes", async function () {
    const body = eventBody(event);
    expect((await post(body, signatureHeader(secret, body))).status).to.equal(204);
    expect((await post(body, signatureHeader(secret, body))).status).to.equal(204);
    const printed = output.split("\n").filter((line) => line.startsWith("verified"));
    expect(printed).to.deep.equal([`verified operation.mined of launch ${event.payload.id}: mined`]);
  });

  it("answers 400 to another secret's signature, a changed body, an old timestamp, or none", async function () {
    const body = eventBody(event);
    const tenMinutesAgo = new Date(Date.now() - 600_000);
    for (const [body_, signature] of [
      [body, signatureHeader(newWebhookSecret(), body)],
      [body.replace("mined", "failed"), signatureHeader(secret, body)],
      [body, signatureHeader(secret, body, tenMinutesAgo)],
      [body, "t=1,v1=00"],
      [body, ""],
    ] as const) {
      expect((await post(body_, signature)).status, signature).to.equal(400);
    }
    expect(output.split("\n").filter((line) => line.startsWith("refused"))).to.have.length(5);
  });
});
