import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect } from "chai";
import { Contract, ContractFactory, Wallet, dataSlice, getAddress, getCreateAddress, id, type AbstractProvider } from "ethers";
import hre from "hardhat";

import { createTokenService, resolveNetwork, type TokenService } from "../../src/api.js";
import { FirstUseCompiler } from "../../src/chains/evm/variants/first-use-compiler.js";
import { create2Address } from "../../src/chains/evm/write/create2.js";
import { MAX_INITCODE_BYTES, launchedByLauncher } from "../../src/chains/evm/write/launch.js";
import { ErrorCode } from "../../src/domain/errors.js";
import { expectServiceError } from "../helpers/errors.js";
import { expectMined } from "../helpers/service.js";
import {
  DEFAULT_ADMIN_ROLE,
  ERC1155_ABI,
  ERC20_ABI,
  ERC721_ABI,
  MINTER_ROLE,
  independentProvider,
  token,
} from "../helpers/token-client.js";

// Upgradeable launches (docs/decisions/0065-upgradeable-launches.md) on a simulated chain (EDR): one transaction sends
// a launcher whose constructor deploys the implementation and its proxy (which runs `initialize`) and leaves no code.
// The token is used through the proxy by the test's own ethers client and by the service's writes; its implementation
// cannot be initialized, its proxy not twice; the token read names the implementation (and the ProxyAdmin); a UUPS
// token is upgraded by its owner only; a transparent proxy's ProxyAdmin is owned by the token's admin; a salt gives the
// proxy's address before anything is mined.

const PAIR = { chain: "ethereum", network: "sepolia" };

const UPGRADEABLE_ABI = [
  "error InvalidInitialization()",
  "error OwnableUnauthorizedAccount(address account)",
  "error AccessControlUnauthorizedAccount(address account, bytes32 neededRole)",
  "function upgradeToAndCall(address newImplementation, bytes data) payable",
  "function proxiableUUID() view returns (bytes32)",
];
const PROXY_ADMIN_ABI = ["function owner() view returns (address)", "function UPGRADE_INTERFACE_VERSION() view returns (string)"];
const IMPLEMENTATION_SLOT = "0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc";

/** The revert's selector of a call or transaction that must fail. */
async function revertSelector(action: Promise<unknown>): Promise<string | undefined> {
  try {
    await action;
  } catch (error) {
    const data = (error as { data?: string }).data;
    return typeof data === "string" ? data.slice(0, 10) : "no data";
  }
  return undefined;
}

const selectorOf = (signature: string) => id(signature).slice(0, 10);

describe("upgradeable launches (uups and transparent, one transaction)", function () {
  this.timeout(600_000);
  let directory: string;
  let compiler: FirstUseCompiler;
  let service: TokenService;
  let provider: AbstractProvider;
  let owner: Wallet;
  let other: Wallet;
  const as = (wallet: Wallet) => ({ sender: wallet.address, privateKey: wallet.privateKey });

  async function launched(type: string, fields: Record<string, unknown>, by = owner, salt?: string) {
    const result = await service.launch({ ...PAIR, type, token: fields, ...as(by), ...(salt !== undefined ? { salt } : {}) });
    await expectMined(service, PAIR, result.transactionHash);
    return result;
  }

  const mined = async (sent: Promise<{ transactionHash: string }>) => expectMined(service, PAIR, (await sent).transactionHash);

  before(async function () {
    directory = await mkdtemp(path.join(tmpdir(), "upgradeable-"));
    compiler = new FirstUseCompiler({ directory });
    service = await createTokenService({ hre, env: {}, variantCompiler: compiler });
    provider = independentProvider(await service.evmChain(resolveNetwork(PAIR.chain, PAIR.network), "test"));
    owner = new Wallet(Wallet.createRandom().privateKey, provider);
    other = new Wallet(Wallet.createRandom().privateKey, provider);
    await service.faucet({ ...PAIR, address: owner.address });
    await service.faucet({ ...PAIR, address: other.address });
  });

  after(async function () {
    await service?.close();
    await rm(directory, { recursive: true, force: true });
  });

  /** The launch's transaction's launcher: its CREATE address, which must hold no code, and what it deployed. */
  async function launcherOf(result: { transactionHash: string; contractAddress: string; nonce: number }) {
    const launcher = getCreateAddress({ from: owner.address, nonce: result.nonce });
    expect(await provider.getCode(launcher), "the launcher leaves no code").to.equal("0x");
    const { implementation, proxy } = launchedByLauncher(launcher);
    expect(proxy).to.equal(result.contractAddress);
    expect(getAddress(dataSlice(await provider.getStorage(proxy, IMPLEMENTATION_SLOT), 12))).to.equal(implementation);
    return { launcher, implementation, proxy };
  }

  /** Neither the implementation (disabled) nor the proxy (initialized) can be initialized again. */
  async function expectInitializeRefused(implementation: string, proxy: string, initialize: string, args: unknown[]) {
    const abi = [...UPGRADEABLE_ABI, `function ${initialize}`];
    for (const at of [implementation, proxy]) {
      expect(
        await revertSelector(
          token(at, abi, other)
            .getFunction("initialize")
            .staticCall(...args),
        ),
        at,
      ).to.equal(selectorOf("InvalidInitialization()"));
    }
  }

  for (const upgradeable of ["uups", "transparent"] as const) {
    describe(upgradeable, function () {
      it(`ERC20 (${upgradeable}, roles): works through the proxy, mints and grants roles through the service, reads report the implementation`, async function () {
        const result = await launched("ERC20", {
          name: "Gold",
          symbol: "GLD",
          initialSupply: "1000",
          options: { mintable: true, burnable: true, permit: true, upgradeable },
        });
        const { implementation, proxy } = await launcherOf(result);
        const gold = token(proxy, ERC20_ABI, owner);
        expect([await gold.getFunction("name")(), await gold.getFunction("symbol")(), await gold.getFunction("decimals")()]).to.deep.equal([
          "Gold",
          "GLD",
          18n,
        ]);
        expect(await gold.getFunction("balanceOf")(owner.address)).to.equal(1000n);
        await mined(service.mint({ ...PAIR, type: "ERC20", contractAddress: proxy, to: other.address, amount: "7", ...as(owner) }));
        expect(await gold.getFunction("balanceOf")(other.address)).to.equal(7n);
        await mined(service.grantRole({ ...PAIR, contractAddress: proxy, role: "MINTER_ROLE", account: other.address, ...as(owner) }));
        expect(await gold.getFunction("hasRole")(MINTER_ROLE, other.address)).to.equal(true);
        await expectInitializeRefused(implementation, proxy, "initialize(string,string,uint8,address,uint256,address)", [
          "X",
          "X",
          18,
          other.address,
          1n,
          other.address,
        ]);
        const info = await service.getTokenInfo({ ...PAIR, contractAddress: proxy });
        expect(info).to.include({ type: "ERC20", name: "Gold", symbol: "GLD" });
        expect(info.features).to.include.members(["mintable", "burnable", "permit", "accessControl"]);
        if (upgradeable === "uups") {
          expect(info.upgradeable).to.deep.equal({ kind: "uups", implementation });
          expect(await gold.getFunction("hasRole")(id("UPGRADER_ROLE"), owner.address)).to.equal(true);
        } else {
          const admin = getCreateAddress({ from: proxy, nonce: 1 });
          expect(info.upgradeable).to.deep.equal({ kind: "transparent", implementation, admin });
          expect(await token(admin, PROXY_ADMIN_ABI, provider).getFunction("owner")()).to.equal(owner.address);
        }
      });

      it(`ERC721 (${upgradeable}, ownable, uriStorage, royalty): mints, transfers ownership`, async function () {
        const result = await launched("ERC721", {
          name: "Art",
          symbol: "ART",
          uri: "ipfs://base/",
          options: { uriStorage: true, royalty: { receiver: other.address, basisPoints: 250 }, access: "ownable", upgradeable },
        });
        const { implementation, proxy } = await launcherOf(result);
        const art = token(proxy, ERC721_ABI, owner);
        expect(await art.getFunction("name")()).to.equal("Art");
        await mined(service.mint({ ...PAIR, type: "ERC721", contractAddress: proxy, to: other.address, uri: "1.json", ...as(owner) }));
        expect(await art.getFunction("ownerOf")(1n)).to.equal(other.address);
        expect(await art.getFunction("tokenURI")(1n)).to.equal("ipfs://base/1.json");
        expect(await art.getFunction("royaltyInfo")(1n, 10_000n)).to.deep.equal([other.address, 250n]);
        await expectInitializeRefused(implementation, proxy, "initialize(string,string,string,address,address,uint96)", [
          "X",
          "X",
          "",
          other.address,
          other.address,
          0n,
        ]);
        const info = await service.getTokenInfo({ ...PAIR, contractAddress: proxy });
        expect(info.upgradeable?.kind).to.equal(upgradeable);
        expect(info.owner).to.equal(owner.address);
        await mined(service.transferOwnership({ ...PAIR, contractAddress: proxy, newOwner: other.address, ...as(owner) }));
        expect(await art.getFunction("owner")()).to.equal(other.address);
        if (upgradeable === "transparent") {
          // The ProxyAdmin stays the launch's admin's: ownership of the token and of its upgrades are apart.
          const admin = getCreateAddress({ from: proxy, nonce: 1 });
          expect(await token(admin, PROXY_ADMIN_ABI, provider).getFunction("owner")()).to.equal(owner.address);
        }
      });

      it(`ERC1155 (${upgradeable}, supply, updatableUri): mints through the proxy`, async function () {
        const result = await launched("ERC1155", {
          name: "Items",
          uri: "ipfs://items/{id}.json",
          options: { supply: true, updatableUri: true, upgradeable },
        });
        const { implementation, proxy } = await launcherOf(result);
        const items = token(proxy, [...ERC1155_ABI, "function totalSupply(uint256) view returns (uint256)"], owner);
        expect(await items.getFunction("name")()).to.equal("Items");
        await mined(
          service.mint({ ...PAIR, type: "ERC1155", contractAddress: proxy, to: other.address, tokenId: "3", amount: "5", ...as(owner) }),
        );
        expect(await items.getFunction("balanceOf")(other.address, 3n)).to.equal(5n);
        expect(await items.getFunction("totalSupply")(3n)).to.equal(5n);
        await expectInitializeRefused(implementation, proxy, "initialize(string,string,address)", ["X", "", other.address]);
        expect((await service.getTokenInfo({ ...PAIR, contractAddress: proxy })).upgradeable?.implementation).to.equal(implementation);
      });
    });
  }

  it("uups: the owner upgrades to a second implementation with upgradeToAndCall; anyone else is refused", async function () {
    const result = await launched("ERC20", {
      name: "Up",
      symbol: "UP",
      initialSupply: "5",
      options: { access: "ownable", upgradeable: "uups" },
    });
    const { proxy } = await launcherOf(result);
    // A second implementation: the same token with burnable, deployed by the test with ethers.
    const second = await compiler.artifact({ kind: "ERC20", features: ["burnable"], access: "ownable", upgradeable: "uups" });
    const deployed = await new ContractFactory(second.abi, second.bytecode, owner).deploy();
    await deployed.waitForDeployment();
    const next = await deployed.getAddress();
    const asOther = token(proxy, UPGRADEABLE_ABI, other);
    expect(await revertSelector(asOther.getFunction("upgradeToAndCall")(next, "0x"))).to.equal(
      selectorOf("OwnableUnauthorizedAccount(address)"),
    );
    await (await token(proxy, UPGRADEABLE_ABI, owner).getFunction("upgradeToAndCall")(next, "0x")).wait();
    expect(getAddress(dataSlice(await provider.getStorage(proxy, IMPLEMENTATION_SLOT), 12))).to.equal(next);
    // The state is the proxy's: the balance is still there, and the new implementation's burn works on it.
    const up = token(proxy, ERC20_ABI, owner);
    expect(await up.getFunction("balanceOf")(owner.address)).to.equal(5n);
    await (await up.getFunction("burn")(2n)).wait();
    expect(await up.getFunction("balanceOf")(owner.address)).to.equal(3n);
    expect((await service.getTokenInfo({ ...PAIR, contractAddress: proxy })).upgradeable).to.deep.equal({
      kind: "uups",
      implementation: next,
    });
  });

  it("uups with roles: UPGRADER_ROLE's holder upgrades, a holder of every other role cannot", async function () {
    const result = await launched("ERC721", { name: "R", symbol: "R", options: { upgradeable: "uups" } });
    const { implementation, proxy } = await launcherOf(result);
    await mined(service.grantRole({ ...PAIR, contractAddress: proxy, role: DEFAULT_ADMIN_ROLE, account: other.address, ...as(owner) }));
    expect(await revertSelector(token(proxy, UPGRADEABLE_ABI, other).getFunction("upgradeToAndCall")(implementation, "0x"))).to.equal(
      selectorOf("AccessControlUnauthorizedAccount(address,bytes32)"),
    );
  });

  it("a salt gives the proxy's address before anything is mined, the same on every chain", async function () {
    const salt = id("upgradeable-salt");
    const fields = {
      name: "Salted",
      symbol: "SLT",
      minter: owner.address,
      account: owner.address,
      options: { upgradeable: "transparent" },
    };
    // Prepared for another sender (whose nonce it holds): the address depends on the salt and the token alone.
    const prepared = await service.prepareLaunch({ ...PAIR, type: "ERC20", token: fields, sender: other.address, salt });
    const result = await launched("ERC20", fields, owner, salt);
    expect(result.contractAddress).to.equal(prepared.contractAddress);
    const raw = (await provider.getTransaction(result.transactionHash))!;
    const initCode = dataSlice(raw.data, 32);
    const launcher = create2Address(salt, initCode);
    expect(await provider.getCode(launcher)).to.equal("0x");
    expect(launchedByLauncher(launcher).proxy).to.equal(result.contractAddress);
    expect(await provider.getCode(result.contractAddress)).to.not.equal("0x");
    // Again with the same salt: the proxy is there, refused before signing.
    await expectServiceError(
      () => service.launch({ ...PAIR, type: "ERC20", token: fields, ...as(owner), salt }),
      ErrorCode.ALREADY_DEPLOYED,
      "salt",
    );
  });

  it("the largest combination (ERC20, every option, roles, uups) stays under EIP-3860's initcode limit and launches", async function () {
    const options = {
      burnable: true,
      pausable: true,
      permit: true,
      capped: true,
      mintable: true,
      votes: "timestamp",
      flashmint: true,
      callback: true,
      upgradeable: "uups",
    };
    const result = await launched("ERC20", { name: "All", symbol: "ALL", totalSupply: "1000000", initialSupply: "10", options });
    const raw = (await provider.getTransaction(result.transactionHash))!;
    const size = (raw.data.length - 2) / 2;
    expect(size).to.be.below(MAX_INITCODE_BYTES);
    const { proxy } = await launcherOf(result);
    expect(await new Contract(proxy, ["function cap() view returns (uint256)"], provider).getFunction("cap")()).to.equal(1000000n);
  });

  it("refuses upgradeable values it does not offer, naming token.options.upgradeable", async function () {
    for (const upgradeable of ["beacon", 1, true]) {
      await expectServiceError(
        () => service.launch({ ...PAIR, type: "ERC20", token: { name: "B", symbol: "B", options: { upgradeable } }, ...as(owner) }),
        ErrorCode.INVALID_ARGUMENT,
        "token.options.upgradeable",
      );
    }
  });
});
