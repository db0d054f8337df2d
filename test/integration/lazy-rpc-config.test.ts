import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import { configVariable } from "hardhat/config";
import hardhat from "hardhat";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";
import type { JsonRpcServer } from "hardhat/types/network";

import { createTokenService, resolveNetwork } from "../../src/api.js";
import { ErrorCode } from "../../src/domain/errors.js";
import { captureOutput } from "../helpers/capture-output.js";
import { expectServiceError } from "../helpers/errors.js";
import { closedPort } from "../helpers/service.js";
import { createFixtureProjectHRE } from "../helpers/fixture-projects.js";

const VARIABLE = "HTS_TEST_SEPOLIA_RPC_URL";

describe("tokenService.rpc: a configuration variable is read only when its pair is used", function () {
  let dataDir: string;
  let hre: HardhatRuntimeEnvironment;
  let node: JsonRpcServer | undefined;

  before(async function () {
    delete process.env[VARIABLE];
    dataDir = await mkdtemp(path.join(tmpdir(), "hts-lazy-rpc-"));
    // The documented plugin config (docs/plugin.md), with the variable not set.
    hre = await createFixtureProjectHRE("consumer", {
      adjust: (config) => ({
        ...config,
        tokenService: { ...config.tokenService, dataDir, rpc: { ethereum: { sepolia: configVariable(VARIABLE) } } },
      }),
    });
  });

  after(async function () {
    delete process.env[VARIABLE];
    await node?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("lets every other pair work while the variable is unset, and names it for its own pair", async function () {
    const wallet = await captureOutput(() =>
      hre.tasks.getTask("wallet:create").run({ chain: "bitcoin", chainNetwork: "testnet", json: true }),
    );
    expect(wallet.stderr).to.equal("");
    expect(JSON.parse(wallet.stdout).address).to.match(/^tb1q/);

    const service = await createTokenService({ hre, env: {} });
    try {
      const owner = service.createWallet({ chain: "ethereum", network: "holesky" });
      await service.faucet({ chain: "ethereum", network: "holesky", address: owner.address });
      const sepolia = service.networks().find((pair) => pair.network === "sepolia" && pair.chain === "ethereum")!;
      expect(sepolia).to.include({
        simulated: false,
        backend: "json-rpc",
        endpoint: `configuration variable ${VARIABLE} via tokenService.rpc`,
      });
      const refusal = await expectServiceError(
        service.getBalances({ chain: "ethereum", network: "sepolia", address: owner.address }),
        ErrorCode.BACKEND_NOT_CONFIGURED,
        "network",
      );
      expect(refusal.message).to.include(VARIABLE).and.to.include("ethereum/sepolia");
    } finally {
      await service.close();
    }
  });

  it("uses the variable's value once it is set, as a live endpoint", async function () {
    node = await hardhat.network.createServer({ override: { chainId: 11155111 } } as never, "127.0.0.1", 0);
    const { port } = await node.listen();
    process.env[VARIABLE] = `http://127.0.0.1:${port}`;
    const service = await createTokenService({ hre, env: {} });
    try {
      const owner = service.createWallet({ chain: "ethereum", network: "sepolia" });
      const read = await service.getBalances({ chain: "ethereum", network: "sepolia", address: owner.address });
      expect(read).to.include({ simulated: false });
    } finally {
      await service.close();
    }
  });
});

describe("tokenService.rpc: a list of endpoints, tried in order, each variable read when its pair is used", function () {
  const BACKUP = "HTS_TEST_HOODI_BACKUP_RPC_URL";
  let dataDir: string;
  let hre: HardhatRuntimeEnvironment;
  let node: JsonRpcServer | undefined;
  let closed: number;

  before(async function () {
    delete process.env[BACKUP];
    dataDir = await mkdtemp(path.join(tmpdir(), "hts-rpc-list-"));
    closed = await closedPort();
    hre = await createFixtureProjectHRE("consumer", {
      adjust: (config) => ({
        ...config,
        tokenService: {
          ...config.tokenService,
          dataDir,
          rpc: { ethereum: { hoodi: [`http://127.0.0.1:${closed}/v2/KEY`, configVariable(BACKUP)] } },
        },
      }),
    });
  });

  after(async function () {
    delete process.env[BACKUP];
    await node?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("says where each endpoint comes from, names an unset variable, and reads through the second while the first is down", async function () {
    const unset = await createTokenService({ hre, env: {} });
    try {
      const hoodi = unset.networks().find((pair) => pair.chain === "ethereum" && pair.network === "hoodi")!;
      expect(hoodi.endpoint).to.equal(`127.0.0.1:${closed}, configuration variable ${BACKUP} via tokenService.rpc`);
      const refusal = await expectServiceError(
        unset.getBalances({ chain: "ethereum", network: "hoodi", address: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266" }),
        ErrorCode.BACKEND_NOT_CONFIGURED,
        "network",
      );
      expect(refusal.message).to.include(BACKUP);
    } finally {
      await unset.close();
    }

    node = await hardhat.network.createServer({ override: { chainId: 560048 } } as never, "127.0.0.1", 0);
    process.env[BACKUP] = `http://127.0.0.1:${(await node.listen()).port}`;
    const service = await createTokenService({ hre, env: {} });
    try {
      const read = await service.getBalances({
        chain: "ethereum",
        network: "hoodi",
        address: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
      });
      expect(read).to.include({ simulated: false });
      const chain = await service.evmChain(resolveNetwork("ethereum", "hoodi"), "read");
      expect(chain.endpointStatuses!().map((status) => [status.endpoint, status.state])).to.deep.equal([
        [`127.0.0.1:${closed}`, "failing"],
        [new URL(process.env[BACKUP]!).host, "up"],
      ]);
    } finally {
      await service.close();
    }
  });
});
