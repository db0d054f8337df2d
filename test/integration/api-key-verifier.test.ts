import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { ApiKeyVerifier } from "../../src/http/api-keys.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/types.js";

describe("API key verification: stored keys remembered by digest", function () {
  let dataDir: string;
  let store: Store;
  let lookups: number;
  let counted: Store;

  beforeEach(async function () {
    dataDir = await mkdtemp(path.join(tmpdir(), "hts-keys-"));
    store = await openStore({ dataDir });
    lookups = 0;
    counted = new Proxy(store, {
      get(target, property, receiver) {
        if (property === "verifyApiKey") {
          return (key: string) => {
            lookups++;
            return target.verifyApiKey(key);
          };
        }
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  });

  afterEach(async function () {
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("reads a stored key from the store once, then answers from memory; wrong keys are read every time", async function () {
    const verifier = new ApiKeyVerifier(["env-key-0123456789"], counted);
    const { id, key } = await store.createApiKey("cached");
    for (let index = 0; index < 5; index++) expect(await verifier.verify(key)).to.equal(id);
    expect(lookups).to.equal(1);
    for (let index = 0; index < 3; index++) expect(await verifier.verify(`${key}x`)).to.equal(undefined);
    expect(lookups).to.equal(4);
    expect(await verifier.verify("env-key-0123456789")).to.match(/^env-/);
    expect(lookups, "environment keys never reach the store").to.equal(4);
  });

  it("accepts a key created after a wrong attempt with it, at its first request", async function () {
    const verifier = new ApiKeyVerifier([], counted);
    expect(await verifier.verify("hts_not-yet")).to.equal(undefined);
    const { id, key } = await store.createApiKey("new");
    expect(await verifier.verify(key)).to.equal(id);
  });
});
