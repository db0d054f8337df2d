import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

import { expect } from "chai";
import { Contract, ContractFactory, Wallet as EthersWallet, getAddress, parseEther, type Interface } from "ethers";

import { resolveNetwork, type TokenService } from "../../src/api.js";
import { launchedTokenVerification } from "../../src/core/token-verification.js";
import type { Wallet } from "../../src/core/wallets.js";
import { ErrorCode } from "../../src/domain/errors.js";
import { expectServiceError } from "../helpers/errors.js";
import { startServer, type RunningServer } from "../helpers/http-server.js";
import { expectOperationMined } from "../helpers/service.js";
import { ERC20_ABI, ERC721_ABI } from "../helpers/token-client.js";
import { SEPOLIA, environments, expectRefusedBeforeSigning, type Environment } from "../helpers/write-environments.js";

// Access "managed" (docs/decisions/0064-access-managed.md): tokens compiled on first use as OpenZeppelin's
// AccessManaged, asking a real OpenZeppelin AccessManager (compiled here from @openzeppelin/contracts with the project's
// solc, deployed by the test) before every restricted call. The manager's admin, the test, allows one sender to mint
// and pause through ethers (grantRole, setTargetFunctionRole); the service mints and pauses for that sender, and
// refuses any other before signing with the token's own reason, AccessManagedUnauthorized. Role and ownership writes,
// which belong to the manager, are refused; an authority that is no AccessManager is refused before signing; and the
// verification input recompiles, with the project's solc, to the very creation code the launch sent.

const require = createRequire(import.meta.url);
const solc = require("solc") as {
  compile(input: string, callbacks?: { import(path: string): { contents?: string; error?: string } }): string;
};
const OZ_ROOT = path.dirname(require.resolve("@openzeppelin/contracts/package.json"));

/** A source of @openzeppelin/contracts as installed, for solc's import callback. */
function openZeppelin(unit: string): { contents?: string; error?: string } {
  const prefix = "@openzeppelin/contracts/";
  if (!unit.startsWith(prefix)) return { error: `not found: ${unit}` };
  return { contents: readFileSync(path.join(OZ_ROOT, unit.slice(prefix.length)), "utf8") };
}

interface SolcContract {
  abi: unknown[];
  evm: { bytecode: { object: string }; deployedBytecode: { object: string } };
}

function compile(input: object): Record<string, Record<string, SolcContract>> {
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: openZeppelin })) as {
    contracts?: Record<string, Record<string, SolcContract>>;
    errors?: Array<{ severity: string; formattedMessage: string }>;
  };
  const errors = (output.errors ?? []).filter((error) => error.severity === "error");
  if (errors.length > 0) throw new Error(errors.map((error) => error.formattedMessage).join("\n"));
  return output.contracts!;
}

/** OpenZeppelin Contracts' own AccessManager, compiled from the installed package. */
function accessManagerArtifact(): SolcContract {
  const unit = "@openzeppelin/contracts/access/manager/AccessManager.sol";
  const contracts = compile({
    language: "Solidity",
    sources: { [unit]: { content: openZeppelin(unit).contents! } },
    settings: {
      evmVersion: "shanghai",
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
    },
  });
  return contracts[unit]!.AccessManager!;
}

/** The role the test's manager gives the one sender allowed to mint and pause. */
const MINTER = 1n;

describe('tokens with access "managed" (AccessManaged) on the simulated chain', function () {
  this.timeout(600_000);
  let env: Environment;
  let service: TokenService;
  let launcher: Wallet;
  let allowed: Wallet;
  let stranger: Wallet;
  let manager: Contract;
  let managerAddress: string;
  /** ERC20: mintable, pausable, managed. */
  let gold: string;
  let goldLaunch: { id: string; transactionHash: string };
  /** ERC721: managed. */
  let art: string;
  let artLaunch: { id: string; transactionHash: string };

  const as = (wallet: Wallet) => ({ sender: wallet.address, privateKey: wallet.privateKey });
  const mined = async <T extends { id: string; transactionHash: string }>(write: Promise<T>) => {
    const sent = await write;
    await expectOperationMined(service, sent);
    return sent;
  };
  const refused = (action: () => Promise<unknown>, code: ErrorCode, field: string | undefined, by: Wallet) =>
    expectRefusedBeforeSigning(env, by.address, action, code, field, [launcher.privateKey, allowed.privateKey, stranger.privateKey]);
  const selector = (iface: Interface, name: string) => iface.getFunction(name)!.selector;

  before(async function () {
    env = await environments[0]!.start();
    service = env.service;
    [launcher, allowed, stranger] = [await env.funded("10"), await env.funded("1"), await env.funded("1")];
    const artifact = accessManagerArtifact();
    // The deployer is the manager's admin (ADMIN_ROLE): it alone sets who may call what.
    const deployed = await new ContractFactory(artifact.abi as never, artifact.evm.bytecode.object, env.deployer).deploy(
      env.deployer.address,
    );
    await deployed.waitForDeployment();
    managerAddress = await deployed.getAddress();
    manager = new Contract(managerAddress, artifact.abi as never, env.deployer);

    goldLaunch = await mined(
      service.launch({
        ...SEPOLIA,
        type: "ERC20",
        token: {
          name: "Managed",
          symbol: "MGD",
          options: { mintable: true, pausable: true, access: "managed" },
          authority: managerAddress,
        },
        ...as(launcher),
      }),
    );
    gold = (goldLaunch as unknown as { contractAddress: string }).contractAddress;
    artLaunch = await mined(
      service.launch({
        ...SEPOLIA,
        type: "ERC721",
        token: { name: "Managed Art", symbol: "MART", uri: "ipfs://art/", options: { access: "managed" }, authority: managerAddress },
        ...as(launcher),
      }),
    );
    art = (artLaunch as unknown as { contractAddress: string }).contractAddress;

    // The manager's admin lets `allowed` (role 1) call mint and pause on the ERC20, mint on the ERC721.
    const erc20 = new Contract(gold, [...ERC20_ABI, "function mint(address,uint256)", "function pause()", "function unpause()"]);
    const erc721 = new Contract(art, [...ERC721_ABI, "function mint(address) returns (uint256)"]);
    await (await manager.getFunction("grantRole")(MINTER, allowed.address, 0)).wait();
    const targets: Array<[string, string[]]> = [
      [gold, [selector(erc20.interface, "mint"), selector(erc20.interface, "pause"), selector(erc20.interface, "unpause")]],
      [art, [selector(erc721.interface, "mint(address)")]],
    ];
    for (const [target, selectors] of targets) await (await manager.getFunction("setTargetFunctionRole")(target, selectors, MINTER)).wait();
  });

  after(async function () {
    await env?.close();
  });

  it("launches tokens whose authority() is the manager and which have no owner and no roles", async function () {
    const onNode = (address: string) =>
      new Contract(address, ["function authority() view returns (address)", "function owner() view returns (address)"], env.node);
    expect(await onNode(gold).getFunction("authority")()).to.equal(managerAddress);
    expect(await onNode(art).getFunction("authority")()).to.equal(managerAddress);
    // owner() is not a function of the token: the call reverts without data.
    expect(await env.node.call({ to: gold, data: onNode(gold).interface.getFunction("owner")!.selector }).catch(() => "reverted")).to.equal(
      "reverted",
    );
    const info = await service.getTokenInfo({ ...SEPOLIA, contractAddress: gold });
    expect(info.authority).to.equal(managerAddress);
    expect(info.features).to.include("managed").and.not.include("accessControl").and.not.include("ownable");
    expect(info).not.to.have.property("owner");
  });

  it("mints and pauses for a sender the manager allows; refuses any other before signing, naming AccessManagedUnauthorized", async function () {
    const balance = () => new Contract(gold, ERC20_ABI, env.node).getFunction("balanceOf")(stranger.address) as Promise<bigint>;
    await mined(service.mint({ ...SEPOLIA, type: "ERC20", contractAddress: gold, to: stranger.address, amount: "7", ...as(allowed) }));
    expect(await balance()).to.equal(7n);

    const notAllowed = await refused(
      () => service.mint({ ...SEPOLIA, type: "ERC20", contractAddress: gold, to: stranger.address, amount: "7", ...as(stranger) }),
      ErrorCode.NOT_A_MINTER,
      "sender",
      stranger,
    );
    expect(notAllowed.details).to.deep.include({
      error: "AccessManagedUnauthorized",
      args: { caller: stranger.address },
      authority: managerAddress,
    });
    expect(notAllowed.message).to.include("AccessManagedUnauthorized");
    // The launcher is nobody to the manager either: launching gives no rights on a managed token.
    await refused(
      () => service.mint({ ...SEPOLIA, type: "ERC721", contractAddress: art, to: stranger.address, ...as(launcher) }),
      ErrorCode.NOT_A_MINTER,
      "sender",
      launcher,
    );
    await mined(service.mint({ ...SEPOLIA, type: "ERC721", contractAddress: art, to: stranger.address, ...as(allowed) }));
    expect(await new Contract(art, ERC721_ABI, env.node).getFunction("ownerOf")(1n)).to.equal(stranger.address);
    expect(await balance()).to.equal(7n);

    // pause() goes through the node's estimate, which decodes the token's revert.
    const pauseRefused = await refused(
      () => service.pause({ ...SEPOLIA, contractAddress: gold, paused: true, ...as(stranger) }),
      ErrorCode.WOULD_REVERT,
      undefined,
      stranger,
    );
    expect(pauseRefused.details).to.deep.include({ error: "AccessManagedUnauthorized", args: { caller: stranger.address } });
    await mined(service.pause({ ...SEPOLIA, contractAddress: gold, paused: true, ...as(allowed) }));
    expect(await new Contract(gold, ["function paused() view returns (bool)"], env.node).getFunction("paused")()).to.equal(true);
    await mined(service.pause({ ...SEPOLIA, contractAddress: gold, paused: false, ...as(allowed) }));
  });

  it("leaves a permission with an execution delay to the node's estimate: unscheduled, it reverts AccessManagerNotScheduled", async function () {
    // Role 2 may call the ERC721's mintWithId, but only through a call scheduled on the manager an hour ahead.
    const mintWithId = new Contract(art, ["function mintWithId(address,uint256)"]).interface.getFunction("mintWithId")!.selector;
    await (await manager.getFunction("setTargetFunctionRole")(art, [mintWithId], 2n)).wait();
    await (await manager.getFunction("grantRole")(2n, stranger.address, 3600)).wait();
    const delayed = await refused(
      () => service.mint({ ...SEPOLIA, type: "ERC721", contractAddress: art, to: stranger.address, tokenId: "50", ...as(stranger) }),
      ErrorCode.WOULD_REVERT,
      undefined,
      stranger,
    );
    expect(delayed.details).to.have.property("error", "AccessManagerNotScheduled");
  });

  it("refuses role and ownership writes with NOT_SUPPORTED_BY_TOKEN: they belong to the manager", async function () {
    for (const grant of [true, false]) {
      const write = grant ? service.grantRole.bind(service) : service.revokeRole.bind(service);
      const roles = await refused(
        () => write({ ...SEPOLIA, contractAddress: gold, role: "MINTER_ROLE", account: stranger.address, ...as(launcher) }),
        ErrorCode.NOT_SUPPORTED_BY_TOKEN,
        "contractAddress",
        launcher,
      );
      expect(roles.details).to.deep.include({ option: "access", needed: "roles", found: "managed", authority: managerAddress });
      expect(roles.message).to.include('"managed"').and.include(managerAddress);
    }
    const ownership = await refused(
      () => service.transferOwnership({ ...SEPOLIA, contractAddress: art, newOwner: stranger.address, ...as(launcher) }),
      ErrorCode.NOT_SUPPORTED_BY_TOKEN,
      "contractAddress",
      launcher,
    );
    expect(ownership.details).to.deep.include({ option: "access", needed: "ownable", found: "managed", authority: managerAddress });
  });

  it("refuses a bad authority, naming token.authority, before anything is signed", async function () {
    const launch = (type: string, token: Record<string, unknown>) => () => service.launch({ ...SEPOLIA, type, token, ...as(launcher) });
    const erc20 = (options: Record<string, unknown>, authority?: unknown) => ({
      name: "A",
      symbol: "A",
      options,
      ...(authority !== undefined ? { authority } : {}),
    });
    const missing = await refused(launch("ERC20", erc20({ access: "managed" })), ErrorCode.INVALID_ARGUMENT, "token.authority", launcher);
    expect(missing.message).to.include("required");
    const withRoles = await refused(
      launch("ERC20", erc20({ access: "roles" }, managerAddress)),
      ErrorCode.INVALID_ARGUMENT,
      "token.authority",
      launcher,
    );
    expect(withRoles.message).to.include('"roles"');
    await refused(
      launch("ERC721", { name: "A", symbol: "A", authority: managerAddress }),
      ErrorCode.INVALID_ARGUMENT,
      "token.authority",
      launcher,
    );
    await refused(
      launch("ERC1155", { name: "A", options: { access: "managed" }, authority: "0x1234" }),
      ErrorCode.INVALID_ADDRESS,
      "token.authority",
      launcher,
    );
    await refused(
      launch("ERC20", erc20({ access: "managed" }, getAddress(`0x${"00".repeat(20)}`))),
      ErrorCode.INVALID_ARGUMENT,
      "token.authority",
      launcher,
    );
    // An account (no code), and a contract that is not an AccessManager (the ERC20 itself): every mint would revert.
    const eoa = await refused(
      launch("ERC20", erc20({ access: "managed", mintable: true }, stranger.address)),
      ErrorCode.INVALID_ARGUMENT,
      "token.authority",
      launcher,
    );
    expect(eoa.message).to.include("has no code");
    const notManager = await refused(
      launch("ERC721", { name: "A", symbol: "A", options: { access: "managed" }, authority: gold }),
      ErrorCode.INVALID_ARGUMENT,
      "token.authority",
      launcher,
    );
    expect(notManager.message).to.include("canCall");
    const access = await expectServiceError(
      service.launch({ ...SEPOLIA, type: "ERC20", token: erc20({ access: "manager" }), ...as(launcher) }),
      ErrorCode.INVALID_ARGUMENT,
      "token.options.access",
    );
    expect(access.message).to.include('"managed"');
  });

  it("answers the verification input the token was compiled from, constructor arguments with the authority", async function () {
    const chain = await service.evmChain(resolveNetwork(SEPOLIA.chain, SEPOLIA.network), "test");
    for (const [address, launched, name] of [
      [gold, goldLaunch, "ServiceERC20PausableMintableManaged"],
      [art, artLaunch, "ServiceERC721Managed"],
    ] as const) {
      const verification = await launchedTokenVerification(
        async () => service.operations.store.getOperation(launched.id),
        chain.info,
        address,
        service.variants,
      );
      expect(verification.contractName).to.equal(name);
      // The constructor's last address argument (ERC20) or its fourth (ERC721) is the manager.
      expect(verification.constructorArguments.toLowerCase()).to.include(managerAddress.slice(2).toLowerCase());
      const [unit, contractName] = verification.fullyQualifiedName.split(":") as [string, string];
      const input = verification.standardJsonInput as { settings: Record<string, unknown> };
      const recompiled = compile({
        ...input,
        settings: { ...input.settings, outputSelection: { "*": { "*": ["evm.bytecode.object", "evm.deployedBytecode.object"] } } },
      })[unit]![contractName]!;
      const sent = await env.node.getTransaction(launched.transactionHash);
      expect(sent!.data.toLowerCase()).to.equal(
        `0x${recompiled.evm.bytecode.object}${verification.constructorArguments.slice(2)}`.toLowerCase(),
      );
      if (name === "ServiceERC721Managed") {
        // No immutables: the runtime code on chain is solc's deployed bytecode, byte for byte.
        expect((await env.node.getCode(address)).toLowerCase()).to.equal(`0x${recompiled.evm.deployedBytecode.object}`);
      }
    }
  });
});

describe('access "managed" over HTTP: the JSON answers, checked against /openapi.json', function () {
  this.timeout(600_000);
  let api: RunningServer;
  let launcher: EthersWallet;
  let allowed: EthersWallet;
  let managerAddress: string;
  let items: string;

  const body = (wallet: EthersWallet) => ({ ...SEPOLIA, sender: wallet.address, privateKey: wallet.privateKey });
  const launch = (token: Record<string, unknown>) =>
    api.call("POST", "/api/v1/tokens?wait=mined", {
      ...body(launcher),
      type: "ERC1155",
      token: { name: "Items", uri: "ipfs://items/{id}", ...token },
    });

  before(async function () {
    api = await startServer();
    const chain = await api.server.service.evmChain(resolveNetwork(SEPOLIA.chain, SEPOLIA.network), "test");
    const funded = async () => {
      const wallet = EthersWallet.createRandom();
      const grant = await api.call("POST", "/api/v1/faucet", { ...SEPOLIA, address: wallet.address, amount: parseEther("5").toString() });
      expect(grant.status, JSON.stringify(grant.body)).to.equal(200);
      return new EthersWallet(wallet.privateKey, chain.provider);
    };
    [launcher, allowed] = [await funded(), await funded()];
    const artifact = accessManagerArtifact();
    const deployed = await new ContractFactory(artifact.abi as never, artifact.evm.bytecode.object, allowed).deploy(allowed.address);
    await deployed.waitForDeployment();
    managerAddress = await deployed.getAddress();
  });

  after(async function () {
    await api?.stop();
  });

  it("launches an ERC1155 with access managed, reads its authority, and answers its verification input", async function () {
    const launched = await launch({
      options: { pausable: true, updatableUri: true, access: "managed" },
      authority: managerAddress.toLowerCase(),
    });
    expect(launched.status, JSON.stringify(launched.body)).to.equal(200);
    items = launched.body.contractAddress as string;
    const info = await api.call("GET", `/api/v1/tokens/${items}?chain=ethereum&network=sepolia`);
    expect(info.status, JSON.stringify(info.body)).to.equal(200);
    expect(info.body).to.deep.include({ type: "ERC1155", authority: managerAddress });
    expect(info.body.features).to.include("managed");
    const verification = await api.call("GET", `/api/v1/tokens/${items}/verification?chain=ethereum&network=sepolia`);
    expect(verification.status, JSON.stringify(verification.body).slice(0, 300)).to.equal(200);
    expect(verification.body.contractName).to.equal("ServiceERC1155PausableUpdatableUriManaged");
    expect((verification.body.constructorArguments as string).toLowerCase()).to.include(managerAddress.slice(2).toLowerCase());
  });

  it("answers 400 naming token.authority, 422 NOT_A_MINTER with the decoded reason, 422 NOT_SUPPORTED_BY_TOKEN", async function () {
    for (const [token, code] of [
      [{ options: { access: "managed" } }, "INVALID_ARGUMENT"],
      [{ options: { access: "roles" }, authority: managerAddress }, "INVALID_ARGUMENT"],
      [{ options: { access: "managed" }, authority: "0xnot-an-address" }, "INVALID_ADDRESS"],
      [{ options: { access: "managed" }, authority: allowed.address }, "INVALID_ARGUMENT"],
    ] as const) {
      const refused = await launch(token);
      expect(refused.status, JSON.stringify(refused.body)).to.equal(400);
      expect(refused.body.error).to.deep.include({ code, field: "token.authority" });
    }
    const mint = await api.call("POST", "/api/v1/tokens/mint", {
      ...body(launcher),
      type: "ERC1155",
      contractAddress: items,
      to: launcher.address,
      tokenId: "1",
      amount: "1",
    });
    expect(mint.status, JSON.stringify(mint.body)).to.equal(422);
    expect(mint.body.error).to.deep.include({ code: "NOT_A_MINTER", field: "sender" });
    expect(mint.body.error.details).to.deep.include({ error: "AccessManagedUnauthorized", args: { caller: launcher.address } });
    const grant = await api.call("POST", "/api/v1/tokens/roles/grant", {
      ...body(launcher),
      contractAddress: items,
      role: "MINTER_ROLE",
      account: allowed.address,
    });
    expect(grant.status, JSON.stringify(grant.body)).to.equal(422);
    expect(grant.body.error).to.deep.include({ code: "NOT_SUPPORTED_BY_TOKEN", field: "contractAddress" });
    expect(grant.body.error.details).to.deep.include({ found: "managed", authority: managerAddress });
  });
});
