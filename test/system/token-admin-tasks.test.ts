import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect } from "chai";
import { Contract, JsonRpcProvider, Wallet as EthersWallet, id, parseEther, toQuantity } from "ethers";

import { startAnvil, type AnvilNode } from "../helpers/anvil.js";
import { cleanEnvironment, runHardhat, type CliResult } from "../helpers/cli.js";
import { fixtureProjectRoot } from "../helpers/fixture-projects.js";

// token:burn, token:pause, token:grant-role, token:revoke-role and token:transfer-ownership through Hardhat's CLI, on
// anvil (the networks fixture's `--network sepolia`, signed with its configured account); every effect read back from
// the node with ethers, without the service.

const token = [
  "function balanceOf(address) view returns (uint256)",
  "function paused() view returns (bool)",
  "function hasRole(bytes32, address) view returns (bool)",
  "function owner() view returns (address)",
];

describe("token:burn, token:pause, token:grant-role, token:revoke-role, token:transfer-ownership (CLI, on anvil)", function () {
  this.timeout(120_000);
  const cwd = fixtureProjectRoot("networks");
  const deployer = EthersWallet.createRandom();
  const friend = EthersWallet.createRandom().address;
  let anvil: AnvilNode;
  let node: JsonRpcProvider;
  let dataDir: string;
  const runs: CliResult[] = [];

  async function hardhat(...args: string[]): Promise<CliResult> {
    const variables = {
      NETWORKS_TOKEN_SERVICE_DATA_DIR: dataDir,
      NETWORKS_SEPOLIA_RPC_URL: anvil.url,
      NETWORKS_DEPLOYER_KEY: deployer.privateKey,
    };
    const result = await runHardhat([...args, "--network", "sepolia"], { cwd, env: cleanEnvironment(variables) });
    runs.push(result);
    return result;
  }
  async function launched(...options: string[]): Promise<string> {
    const result = await hardhat(
      "token:launch",
      "--type",
      "erc20",
      "--name",
      "Gold",
      "--symbol",
      "GLD",
      "--initial-supply",
      "100",
      ...options,
      "--json",
    );
    expect(result.code, result.stderr).to.equal(0);
    return JSON.parse(result.stdout).contractAddress;
  }
  const onNode = (contract: string) => new Contract(contract, token, node);

  before(async function () {
    dataDir = await mkdtemp(path.join(tmpdir(), "hts-admin-tasks-"));
    anvil = await startAnvil({ chainId: 11155111 });
    node = new JsonRpcProvider(anvil.url, 11155111, { staticNetwork: true, cacheTimeout: -1 });
    await anvil.rpc("anvil_setBalance", [deployer.address, toQuantity(parseEther("10"))]);
  });

  after(async function () {
    node?.destroy();
    await anvil?.stop();
    await rm(dataDir, { recursive: true, force: true });
    for (const result of runs) expect(result.stdout + result.stderr).not.to.include(deployer.privateKey.slice(2));
  });

  it("`hardhat --help` lists them", async function () {
    const result = await runHardhat(["--help"], { cwd, env: cleanEnvironment({}) });
    for (const [task, description] of [
      ["token:burn", "Burn the sender's ERC20, ERC721 or ERC1155 tokens"],
      ["token:pause", "Pause a token"],
      ["token:grant-role", "Grant a role of a token"],
      ["token:revoke-role", "Revoke a role of a token from an account"],
      ["token:transfer-ownership", "Hand a token launched with access ownable to a new owner"],
    ]) {
      expect(result.stdout).to.match(new RegExp(`^\\s+${task}\\s+${description}`, "m"));
    }
  });

  it("burns in whole tokens, pauses, unpauses, grants and revokes a role; the node agrees", async function () {
    const gold = await launched("--options", "burnable,pausable,mintable");

    const burnt = await hardhat("token:burn", "--type", "erc20", "--contract", gold, "--amount", "2.5");
    expect(burnt.code, burnt.stderr).to.equal(0);
    expect(burnt.stdout).to.include(`Burned 2.5 GLD of ${gold} held by ${deployer.address} on ethereum/sepolia (live network:`);
    expect(burnt.stdout).to.match(/status\s+mined \(block \d+\)/);
    expect(await onNode(gold).getFunction("balanceOf")(deployer.address)).to.equal(parseEther("97.5"));

    const paused = await hardhat("token:pause", "--contract", gold, "--json");
    expect(paused.code, paused.stderr).to.equal(0);
    expect(JSON.parse(paused.stdout)).to.include({ status: "mined", paused: true, contractAddress: gold });
    expect(await onNode(gold).getFunction("paused")()).to.equal(true);
    const again = await hardhat("token:pause", "--contract", gold);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.include("Error in community plugin hardhat-token-service: WOULD_REVERT (--unpause): ");
    expect(again.stderr).to.include("EnforcedPause");
    const unpaused = await hardhat("token:pause", "--contract", gold, "--unpause");
    expect(unpaused.code, unpaused.stderr).to.equal(0);
    expect(unpaused.stdout).to.include(`Unpaused ${gold} on ethereum/sepolia`);
    expect(await onNode(gold).getFunction("paused")()).to.equal(false);

    const granted = await hardhat("token:grant-role", "--contract", gold, "--role", "MINTER_ROLE", "--account", friend);
    expect(granted.code, granted.stderr).to.equal(0);
    expect(granted.stdout).to.include(`Granted MINTER_ROLE of ${gold} to ${friend} on ethereum/sepolia`);
    expect(await onNode(gold).getFunction("hasRole")(id("MINTER_ROLE"), friend)).to.equal(true);
    const revoked = await hardhat("token:revoke-role", "--contract", gold, "--role", "MINTER_ROLE", "--account", friend, "--json");
    expect(revoked.code, revoked.stderr).to.equal(0);
    expect(JSON.parse(revoked.stdout)).to.include({ status: "mined", role: "MINTER_ROLE", roleId: id("MINTER_ROLE"), account: friend });
    expect(await onNode(gold).getFunction("hasRole")(id("MINTER_ROLE"), friend)).to.equal(false);
  });

  it("hands an Ownable token over; what a token cannot do exits 1 naming the option", async function () {
    const owned = await launched("--options", "access=ownable");
    const refused = await hardhat("token:burn", "--type", "erc20", "--contract", owned, "--amount", "1");
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include("Error in community plugin hardhat-token-service: NOT_SUPPORTED_BY_TOKEN (--contract): ");
    expect(refused.stderr).to.include("burnable");
    const roles = await hardhat("token:grant-role", "--contract", owned, "--role", "MINTER_ROLE", "--account", friend);
    expect(roles.code).to.equal(1);
    expect(roles.stderr).to.include("NOT_SUPPORTED_BY_TOKEN (--contract)");

    const handed = await hardhat("token:transfer-ownership", "--contract", owned, "--new-owner", friend);
    expect(handed.code, handed.stderr).to.equal(0);
    expect(handed.stdout).to.include(`Handed ${owned} from ${deployer.address} to ${friend}`);
    expect(await onNode(owned).getFunction("owner")()).to.equal(friend);
    const zero = await hardhat(
      "token:transfer-ownership",
      "--contract",
      owned,
      "--new-owner",
      "0x0000000000000000000000000000000000000000",
    );
    expect(zero.code).to.equal(1);
    expect(zero.stderr).to.include("INVALID_ARGUMENT (--new-owner)");
  });
});
