import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

import { expect } from "chai";

import { EnvironmentError, readEnvironment, readFamilyVariable, readVariable } from "../../src/config/environment.js";
import { FAMILIES } from "../../src/config/variable-families.js";
import { VARIABLES } from "../../src/config/variables.js";
import { endpointList } from "../../src/config/variable-values.js";
import { TokenService } from "../../src/core/token-service.js";
import { DEFAULT_TRACKER_SETTINGS } from "../../src/core/operations/tracker-settings.js";
import { isTokenServiceError } from "../../src/domain/errors.js";
import { loadSettings } from "../../src/http/settings.js";
import { DEFAULT_DELIVERY_SETTINGS } from "../../src/webhooks/delivery-worker.js";
import { bitcoinBackendsFromEnv } from "../../src/chains/bitcoin/backends.js";
import { MemoryOperationStore } from "../../src/store/memory-store.js";

const SRC = path.resolve(import.meta.dirname, "../..", "src");
const SCHEMA_FILE = path.join("config", "environment.ts");

function sources(): Array<{ file: string; text: string }> {
  return (readdirSync(SRC, { recursive: true, withFileTypes: true }) as Array<{ isFile(): boolean; name: string; parentPath: string }>)
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts"))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .map((file) => ({ file: path.relative(SRC, file), text: readFileSync(file, "utf8") }));
}

function refusal(read: () => unknown): EnvironmentError {
  try {
    read();
  } catch (error) {
    expect(error).to.be.instanceOf(EnvironmentError);
    return error as EnvironmentError;
  }
  throw new Error("accepted");
}

describe("the environment schema (src/config/variables.ts, read by environment.ts)", function () {
  it("is the only module of src/ that reads a variable's value", function () {
    const readers = sources()
      .filter(({ file }) => file !== SCHEMA_FILE)
      .flatMap(({ file, text }) =>
        [...text.matchAll(/process\.env(?:\.[A-Za-z_]|\[)|\benv\??\.\[|\benv\[|\benv\.[A-Z]/g)].map((match) => `${file}: ${match[0]}`),
      );
    expect(readers, "read the environment through src/config/environment.ts").to.deep.equal([]);
  });

  it("describes every variable src/ names", function () {
    const families = Object.values(FAMILIES).flatMap((family) => family.names());
    const described = new Set([...Object.keys(VARIABLES), ...families]);
    const named = sources().flatMap(({ file, text }) =>
      [...text.matchAll(/\b(TOKEN_SERVICE_[A-Z0-9_]*[A-Z0-9]|DATABASE_URL|LOG_LEVEL)\b/g)].map((match) => ({ file, name: match[1]! })),
    );
    const prefixes = Object.values(FAMILIES).map((family) => family.name.replace(/<.*$/, ""));
    const undescribed = named.filter(
      ({ name }) => !described.has(name) && !prefixes.some((prefix) => name === prefix.replace(/_$/, "") || name.startsWith(prefix)),
    );
    expect(undescribed.map(({ file, name }) => `${file}: ${name}`)).to.deep.equal([]);
    for (const spec of [...Object.values(VARIABLES), ...Object.values(FAMILIES)]) {
      expect(spec.type, spec.name).to.match(/\S/);
      expect(spec.default, spec.name).to.match(/\S/);
      expect(spec.description, spec.name).to.match(/\S/);
      expect(spec.readBy.length, spec.name).to.be.greaterThan(0);
    }
  });

  it("has the defaults the tracker and the webhook worker have", function () {
    const settings = loadSettings({});
    const { idlePollMs: _poll, ...tracker } = DEFAULT_TRACKER_SETTINGS;
    expect(settings.tracker).to.deep.equal(tracker);
    expect(settings.webhooks.delivery).to.deep.equal(DEFAULT_DELIVERY_SETTINGS);
    expect(readVariable({}, "LOG_LEVEL")).to.equal("info");
    expect(readVariable({ DATABASE_URL: "  " }, "DATABASE_URL")).to.equal(undefined);
  });

  it("refuses a bad value naming the variable, quoting it unless it may hold a credential", function () {
    expect(refusal(() => readVariable({ LOG_LEVEL: "verbose" }, "LOG_LEVEL")).message).to.equal(
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "verbose")',
    );
    const database = refusal(() => readVariable({ DATABASE_URL: "mysql://root:hunter2@db/x" }, "DATABASE_URL"));
    expect(database.message).to.match(/^DATABASE_URL must be a URL like postgres:\/\//);
    expect(database.message).not.to.include("hunter2");
    expect(database.variable).to.equal("DATABASE_URL");
    const rpc = refusal(() => readEnvironment({ TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA: "sepolia.example.org/v2/SECRETKEY" }));
    expect(rpc.message).to.match(/^TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA must be a URL like https:\/\//);
    expect(rpc.message).not.to.include("SECRETKEY");
    expect(refusal(() => loadSettings({ LOG_LEVEL: "loud" })).variable).to.equal("LOG_LEVEL");
    expect(
      readFamilyVariable(
        { TOKEN_SERVICE_ESPLORA_BITCOIN_SIGNET: " https://e.example/api " },
        "esplora",
        "TOKEN_SERVICE_ESPLORA_BITCOIN_SIGNET",
      ),
    ).to.equal("https://e.example/api");
  });

  it("takes several endpoints in TOKEN_SERVICE_RPC_*, comma-separated; refuses an empty or bad entry or a repeated one by position, quoting none", function () {
    const name = "TOKEN_SERVICE_RPC_ETHEREUM_SEPOLIA";
    expect(readFamilyVariable({ [name]: " https://a.example/v2/K1, https://b.example " }, "rpc", name)).to.equal(
      "https://a.example/v2/K1, https://b.example",
    );
    expect(endpointList("https://a.example/v2/K1, https://b.example")).to.deep.equal(["https://a.example/v2/K1", "https://b.example"]);
    for (const [value, reason] of [
      ["https://a.example/KEY1,,https://b.example", "(entry 2 of 3 is empty)"],
      ["https://a.example/KEY1,b.example/KEY2", "(entry 2 of 2 is not one)"],
      ["https://a.example/KEY1,https://a.example/KEY1", "must list each endpoint once (entry 2 repeats entry 1)"],
    ] as const) {
      const error = refusal(() => readFamilyVariable({ [name]: value }, "rpc", name));
      expect(error.message).to.include(reason);
      expect(error.message).not.to.match(/KEY\d/);
    }
  });

  it("reads the endpoint failover settings, refusing a threshold of 0", function () {
    expect(readVariable({}, "TOKEN_SERVICE_ENDPOINT_FAILURE_THRESHOLD")).to.equal(3);
    expect(readVariable({}, "TOKEN_SERVICE_ENDPOINT_COOLDOWN_SECONDS")).to.equal(30_000);
    expect(readVariable({ TOKEN_SERVICE_ENDPOINT_COOLDOWN_SECONDS: "0.5" }, "TOKEN_SERVICE_ENDPOINT_COOLDOWN_SECONDS")).to.equal(500);
    expect(
      refusal(() => readVariable({ TOKEN_SERVICE_ENDPOINT_FAILURE_THRESHOLD: "0" }, "TOKEN_SERVICE_ENDPOINT_FAILURE_THRESHOLD")).message,
    ).to.equal('TOKEN_SERVICE_ENDPOINT_FAILURE_THRESHOLD must be 1 or more (got "0")');
  });

  it("checks TOKEN_SERVICE_CHAINS, and the endpoint variables of the chains it declares, at start-up", function () {
    const declared = JSON.stringify({ linea: { nativeSymbol: "ETH", networks: { mainnet: { chainId: 59144 } } } });
    expect(readVariable({ TOKEN_SERVICE_CHAINS: declared }, "TOKEN_SERVICE_CHAINS")).to.deep.equal({
      linea: { nativeSymbol: "ETH", nativeDecimals: 18, networks: { mainnet: { chainId: 59144 } } },
    });
    expect(readVariable({}, "TOKEN_SERVICE_CHAINS")).to.deep.equal({});
    const endpoint = refusal(() => readEnvironment({ TOKEN_SERVICE_CHAINS: declared, TOKEN_SERVICE_RPC_LINEA_MAINNET: "linea-KEY789" }));
    expect(endpoint.variable).to.equal("TOKEN_SERVICE_RPC_LINEA_MAINNET");
    expect(endpoint.message).not.to.include("KEY789");
    const field = refusal(() => loadSettings({ TOKEN_SERVICE_CHAINS: '{"linea":{"nativeSymbol":"ETH","networks":{"mainnet":{}}}}' }));
    expect(field.variable).to.equal("TOKEN_SERVICE_CHAINS");
    expect(field.message).to.equal("TOKEN_SERVICE_CHAINS at linea.networks.mainnet.chainId: chainId must be a whole number, 1 or more");
  });

  it("makes a pair whose variable is bad fail alone, with BACKEND_NOT_CONFIGURED naming it", async function () {
    const env = { TOKEN_SERVICE_RPC_ETHEREUM_HOODI: "not a url KEY123", TOKEN_SERVICE_ESPLORA_BITCOIN_SIGNET: "ftp://KEY456@x" };
    const service = new TokenService({ env, bitcoin: bitcoinBackendsFromEnv(env), operationStore: new MemoryOperationStore() });
    try {
      const hoodi = service.networks().find((pair) => pair.chain === "ethereum" && pair.network === "hoodi");
      expect(hoodi).to.include({ simulated: false, endpoint: "misconfigured (fix TOKEN_SERVICE_RPC_ETHEREUM_HOODI)" });
      const address = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
      const error = await service.getBalances({ chain: "ethereum", network: "hoodi", address }).catch((caught: unknown) => caught);
      expect(isTokenServiceError(error, "BACKEND_NOT_CONFIGURED"), String(error)).to.equal(true);
      expect((error as Error).message).to.match(/^TOKEN_SERVICE_RPC_ETHEREUM_HOODI must be a URL/);
      expect((error as Error).message).not.to.include("KEY123");
      const signet = await service
        .getBalances({ chain: "bitcoin", network: "signet", address: "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx" })
        .catch((caught: unknown) => caught);
      expect(isTokenServiceError(signet, "BACKEND_NOT_CONFIGURED"), String(signet)).to.equal(true);
      expect((signet as Error).message).to.match(/^TOKEN_SERVICE_ESPLORA_BITCOIN_SIGNET must be a URL/);
      expect((signet as Error).message).not.to.include("KEY456");
    } finally {
      await service.close();
    }
  });
});
