import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect } from "chai";
import hre from "hardhat";

import { createTokenService, type TokenService } from "../../../src/api.js";
import { ErrorCode } from "../../../src/domain/errors.js";
import { ownWalletName, useRegtestBitcoind, type NodeRpc } from "../../helpers/bitcoind.js";
import { cleanEnvironment, runHardhat, type CliResult } from "../../helpers/cli.js";
import { expectServiceError } from "../../helpers/errors.js";
import { fixtureProjectRoot } from "../../helpers/fixture-projects.js";

const REGTEST = { chain: "bitcoin", network: "regtest" } as const;

const btc = (satoshis: bigint | number) => ({ balance: String(satoshis), uiBalance: (Number(satoshis) / 1e8).toString() });

function parseJsonOutput(run: CliResult): any {
  const start = run.stdout.indexOf("{");
  expect(start, `no JSON in the task's output:\n${run.stdout}\n${run.stderr}`).to.be.at.least(0);
  return JSON.parse(run.stdout.slice(start));
}

/** Confirmed unspent total of an address straight from the node's UTXO set, independent of the service. */
async function utxoSetTotal(rpc: NodeRpc, address: string): Promise<bigint> {
  const scan = await rpc<{ total_amount: number }>("scantxoutset", ["start", [`addr(${address})`]]);
  return BigInt(Math.round(scan.total_amount * 1e8));
}

describe("bitcoin regtest against a real bitcoind", function () {
  const regtest = useRegtestBitcoind();
  let service: TokenService;
  /** The tasks' data directory: of this suite alone, not the project's. */
  let dataDir: string;

  const mine = (blocks = 1) => regtest.node.rpc("generatetoaddress", [blocks, regtest.funder.address]);
  const sendFromFunder = (address: string, amountBtc: string) =>
    regtest.node.rpc<string>("sendtoaddress", { address, amount: amountBtc, fee_rate: 5 }, regtest.funder.wallet);
  const balanceOf = async (address: string) => (await service.getBalances({ ...REGTEST, address })).balances.BTC;

  before(async function () {
    if (!regtest.available) this.skip();
    dataDir = await mkdtemp(path.join(tmpdir(), "hts-bitcoind-tasks-"));
    service = await createTokenService({ hre, env: { TOKEN_SERVICE_BITCOIND_BITCOIN_REGTEST: regtest.node.url } });
  });

  after(async function () {
    await service?.close();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  /** A task through the Hardhat CLI, as a user runs it, in a project of the tests' with this suite's data directory. */
  const hardhat = (args: string[], env: Record<string, string>) =>
    runHardhat(args, {
      cwd: fixtureProjectRoot("consumer"),
      env: cleanEnvironment({ ...env, CONSUMER_TOKEN_SERVICE_DATA_DIR: dataDir }),
      timeoutMs: 120_000,
    });

  it("a wallet created through the core, funded over RPC: the amount shows unconfirmed, then confirmed once mined", async function () {
    const wallet = service.createWallet(REGTEST);
    expect(wallet.address).to.match(/^bcrt1q/);
    // The address is new to the node: the first read imports it after the payment already sits in the mempool.
    const txid = await sendFromFunder(wallet.address, "1.25");
    const pending = await service.getBalances({ ...REGTEST, address: wallet.address });
    expect(pending).to.deep.include({ chain: "bitcoin", network: "regtest", address: wallet.address, simulated: false });
    expect(pending.balances).to.deep.equal({ BTC: { ...btc(125_000_000n), confirmed: btc(0), unconfirmed: btc(125_000_000n) } });
    expect(await regtest.node.rpc<string[]>("getrawmempool")).to.include(txid);

    await mine();
    expect(await balanceOf(wallet.address)).to.deep.equal({ ...btc(125_000_000n), confirmed: btc(125_000_000n), unconfirmed: btc(0) });
    expect(await utxoSetTotal(regtest.node.rpc, wallet.address)).to.equal(125_000_000n);
  });

  it("an address already watched sees a new payment while it waits in the mempool, and after it is mined", async function () {
    const { address } = service.createWallet({ ...REGTEST, addressType: "p2tr" });
    expect(await balanceOf(address)).to.deep.equal({ ...btc(0), confirmed: btc(0), unconfirmed: btc(0) });
    await sendFromFunder(address, "0.00012345");
    expect(await balanceOf(address)).to.deep.equal({ ...btc(12_345), confirmed: btc(0), unconfirmed: btc(12_345) });
    await sendFromFunder(address, "2");
    await mine();
    expect(await balanceOf(address)).to.deep.equal({ ...btc(200_012_345n), confirmed: btc(200_012_345n), unconfirmed: btc(0) });
  });

  it("the faucet through the core pays 10 BTC by default, mines it, and the node's UTXO set agrees", async function () {
    const { address } = service.createWallet(REGTEST);
    const result = await service.faucet({ ...REGTEST, address });
    expect(result).to.deep.include({ chain: "bitcoin", network: "regtest", address, simulated: false });
    expect(result.amount).to.deep.equal(btc(1_000_000_000n));
    expect(result.transactionHash).to.match(/^[0-9a-f]{64}$/);
    expect(result.balance).to.deep.include(btc(1_000_000_000n));
    expect(await utxoSetTotal(regtest.node.rpc, address)).to.equal(1_000_000_000n);
    const tx = await regtest.node.rpc<{ confirmations: number }>("gettransaction", [result.transactionHash], "token-service-faucet");
    expect(tx.confirmations).to.equal(1);

    const more = await service.faucet({ ...REGTEST, address, amount: "150000000" });
    expect(more.amount).to.deep.equal(btc(150_000_000n));
    expect(await balanceOf(address)).to.deep.equal({ ...btc(1_150_000_000n), confirmed: btc(1_150_000_000n), unconfirmed: btc(0) });
  });

  it("the faucet refuses an amount below the dust limit and one above the supply, naming amount", async function () {
    const { address } = service.createWallet(REGTEST);
    await expectServiceError(service.faucet({ ...REGTEST, address, amount: "1" }), ErrorCode.INVALID_ARGUMENT, "amount", [
      regtest.node.password,
    ]);
    await expectServiceError(service.faucet({ ...REGTEST, address, amount: "2100000000000001" }), ErrorCode.INVALID_ARGUMENT, "amount");
    expect(await utxoSetTotal(regtest.node.rpc, address)).to.equal(0n);
  });

  it("a spend of confirmed coins waiting in the mempool: confirmed stays, unconfirmed goes negative, until mined", async function () {
    const wallet = service.createWallet(REGTEST);
    await service.faucet({ ...REGTEST, address: wallet.address, amount: "300000000" });
    // Spend with the wallet's own key, imported into a node wallet of the test's.
    const rpc = regtest.node.rpc;
    const spender = ownWalletName("test-spender");
    await rpc("createwallet", { wallet_name: spender, blank: true });
    const { checksum } = await rpc<{ checksum: string }>("getdescriptorinfo", [`wpkh(${wallet.privateKey})`]);
    const [imported] = await rpc<Array<{ success: boolean }>>(
      "importdescriptors",
      [[{ desc: `wpkh(${wallet.privateKey})#${checksum}`, timestamp: 0 }]],
      spender,
    );
    expect(imported?.success).to.equal(true);
    await rpc("sendall", { recipients: [regtest.funder.address], fee_rate: 5 }, spender);

    expect(await balanceOf(wallet.address)).to.deep.equal({
      ...btc(0),
      confirmed: btc(300_000_000n),
      unconfirmed: { balance: "-300000000", uiBalance: "-3" },
    });
    await mine();
    expect(await balanceOf(wallet.address)).to.deep.equal({ ...btc(0), confirmed: btc(0), unconfirmed: btc(0) });
  });

  it("the faucet and balance tasks through the Hardhat CLI", async function () {
    const env = { TOKEN_SERVICE_BITCOIND_BITCOIN_REGTEST: regtest.node.url };
    const { address } = service.createWallet(REGTEST);
    const faucet = await hardhat(
      ["faucet", "--chain", "bitcoin", "--chain-network", "regtest", "--address", address, "--amount", "2.5", "--json"],
      env,
    );
    expect(faucet.code, faucet.stderr).to.equal(0);
    const funded = parseJsonOutput(faucet);
    expect(funded).to.deep.include({ chain: "bitcoin", network: "regtest", address });
    expect(funded.amount).to.deep.equal(btc(250_000_000n));
    expect(funded.transactionHash).to.match(/^[0-9a-f]{64}$/);

    const balance = await hardhat(["balance", "--chain", "bitcoin", "--chain-network", "regtest", "--address", address, "--json"], env);
    expect(balance.code, balance.stderr).to.equal(0);
    expect(parseJsonOutput(balance).balances).to.deep.equal({
      BTC: { ...btc(250_000_000n), confirmed: btc(250_000_000n), unconfirmed: btc(0) },
    });

    // The human-readable form shows the unconfirmed part while a payment waits.
    await sendFromFunder(address, "0.5");
    const human = await hardhat(["balance", "--chain", "bitcoin", "--chain-network", "regtest", "--address", address], env);
    expect(human.code, human.stderr).to.equal(0);
    expect(human.stdout).to.include(`Balances of ${address} on bitcoin/regtest`);
    expect(human.stdout).to.match(/BTC\s+3\s+\(confirmed 2\.5, unconfirmed 0\.5\)/);
    await mine();
    expect(await utxoSetTotal(regtest.node.rpc, address)).to.equal(300_000_000n);
  });

  it("wrong RPC credentials: UPSTREAM_UNAVAILABLE naming host:port; the password appears in no error, task output included", async function () {
    const wrong = `http://${regtest.node.user}:not-the-${regtest.node.password}@${regtest.node.host}`;
    const secrets = [regtest.node.password, `not-the-${regtest.node.password}`];
    const bad = await createTokenService({ hre, env: { TOKEN_SERVICE_BITCOIND_BITCOIN_REGTEST: wrong } });
    try {
      const { address } = bad.createWallet(REGTEST);
      const error = await expectServiceError(bad.getBalances({ ...REGTEST, address }), ErrorCode.UPSTREAM_UNAVAILABLE, undefined, secrets);
      expect(error.message).to.include(regtest.node.host).and.include("credentials");
      await expectServiceError(bad.faucet({ ...REGTEST, address }), ErrorCode.UPSTREAM_UNAVAILABLE, undefined, secrets);
      expect(JSON.stringify(bad.networks())).not.to.include(regtest.node.password);
      const task = await hardhat(["balance", "--chain", "bitcoin", "--chain-network", "regtest", "--address", address], {
        TOKEN_SERVICE_BITCOIND_BITCOIN_REGTEST: wrong,
      });
      expect(task.code).to.not.equal(0);
      expect(task.stderr).to.include("UPSTREAM_UNAVAILABLE");
      for (const secret of secrets) expect(task.stdout + task.stderr).not.to.include(secret);
    } finally {
      await bad.close();
    }
  });

  it("a node of another chain than configured: CHAIN_ID_MISMATCH naming network (the regtest node set as testnet)", async function () {
    const misrouted = await createTokenService({ hre, env: { TOKEN_SERVICE_BITCOIND_BITCOIN_TESTNET: regtest.node.url } });
    try {
      const error = await expectServiceError(
        misrouted.getBalances({ chain: "bitcoin", network: "testnet", address: "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx" }),
        ErrorCode.CHAIN_ID_MISMATCH,
        "network",
        [regtest.node.password],
      );
      expect(error.message).to.include('"regtest"');
      await expectServiceError(
        misrouted.faucet({ chain: "bitcoin", network: "testnet", address: "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx" }),
        ErrorCode.LIVE_NETWORK_FAUCET,
        "network",
      );
    } finally {
      await misrouted.close();
    }
  });

  it("wrong-network addresses are INVALID_ADDRESS naming address, with a live backend too", async function () {
    await expectServiceError(
      service.getBalances({ ...REGTEST, address: "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx" }),
      ErrorCode.INVALID_ADDRESS,
      "address",
    );
    await expectServiceError(
      service.faucet({ ...REGTEST, address: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4" }),
      ErrorCode.INVALID_ADDRESS,
      "address",
    );
  });

  // Last: it moves the node's clock a day ahead.
  it("an address funded long before the service first saw it still shows its coins (rescan from its oldest unspent output)", async function () {
    const { address } = service.createWallet(REGTEST);
    await sendFromFunder(address, "0.75");
    await mine();
    const { mediantime } = await regtest.node.rpc<{ mediantime: number }>("getblockchaininfo");
    // A day later, and enough blocks that the chain's median time moves past the import's 2-hour rescan window.
    await regtest.node.rpc("setmocktime", [mediantime + 86_400]);
    await mine(11);
    const fresh = await createTokenService({ hre, env: { TOKEN_SERVICE_BITCOIND_BITCOIN_REGTEST: regtest.node.url } });
    try {
      expect((await fresh.getBalances({ ...REGTEST, address })).balances.BTC).to.deep.equal({
        ...btc(75_000_000n),
        confirmed: btc(75_000_000n),
        unconfirmed: btc(0),
      });
    } finally {
      await fresh.close();
    }
  });
});
