import { readFile } from "node:fs/promises";
import path from "node:path";

import { expect } from "chai";
import { Wallet, type BaseContract, type ContractRunner, type ContractTransactionResponse, type Interface, type Result } from "ethers";
import hre from "hardhat";
import type { HardhatEthers } from "@nomicfoundation/hardhat-ethers/types";

const MINTER_ROLE = "0x9f2df0fed2c77648de5860a4cc508cd0818c85b8b8a1ab4ceeef8d981c8956a6";
const DEFAULT_ADMIN_ROLE = `0x${"00".repeat(32)}`;
const MAX_UINT256 = (1n << 256n) - 1n;

type Tx = Promise<ContractTransactionResponse>;

/** The contracts' functions the tests call (no generated typings in this project). */
type ServiceErc20 = Omit<BaseContract, "connect"> & {
  connect(runner: ContractRunner): ServiceErc20;
  name(): Promise<string>;
  symbol(): Promise<string>;
  decimals(): Promise<bigint>;
  totalSupply(): Promise<bigint>;
  cap(): Promise<bigint>;
  balanceOf(owner: string): Promise<bigint>;
  hasRole(role: string, account: string): Promise<boolean>;
  MINTER_ROLE(): Promise<string>;
  mint(to: string, amount: bigint): Tx;
  grantRole(role: string, account: string): Tx;
};

type ServiceErc721 = Omit<BaseContract, "connect"> & {
  connect(runner: ContractRunner): ServiceErc721;
  name(): Promise<string>;
  symbol(): Promise<string>;
  hasRole(role: string, account: string): Promise<boolean>;
  "mint(address)"(to: string): Tx;
  "mint(address,string)"(to: string, uri: string): Tx;
  mintWithId(to: string, tokenId: bigint, uri: string): Tx;
  ownerOf(tokenId: bigint): Promise<string>;
  tokenURI(tokenId: bigint): Promise<string>;
  balanceOf(owner: string): Promise<bigint>;
  tokenOfOwnerByIndex(owner: string, index: bigint): Promise<bigint>;
  totalSupply(): Promise<bigint>;
  tokenByIndex(index: bigint): Promise<bigint>;
  transferFrom(from: string, to: string, tokenId: bigint): Tx;
  supportsInterface(interfaceId: string): Promise<boolean>;
};

/** Awaits a transaction (or deployment) that must revert with the named custom error; returns the error's arguments. */
async function expectRevert(action: Promise<unknown>, iface: Interface, errorName: string): Promise<Result> {
  let data: string | undefined;
  try {
    await action;
  } catch (error) {
    data = (error as { data?: string }).data;
  }
  expect(data, `expected a revert with ${errorName}`).to.be.a("string");
  const parsed = iface.parseError(data!);
  expect(parsed?.name).to.equal(errorName);
  return parsed!.args;
}

describe("contracts", function () {
  let ethers: HardhatEthers;
  let closeConnection: () => Promise<void>;

  before(async function () {
    const connection = await hre.network.create();
    ethers = connection.ethers;
    closeConnection = () => connection.close();
  });

  after(async function () {
    await closeConnection();
  });

  describe("ServiceERC20", function () {
    async function deployErc20(
      options: { decimals?: number; cap?: bigint; minter?: string; initialSupply?: bigint; account?: string } = {},
    ) {
      const [sender] = await ethers.getSigners();
      const factory = await ethers.getContractFactory("ServiceERC20");
      const token = await factory.deploy(
        "Service Token",
        "SVC",
        options.decimals ?? 18,
        options.cap ?? MAX_UINT256,
        options.minter ?? sender!.address,
        options.initialSupply ?? 0n,
        options.account ?? sender!.address,
      );
      await token.waitForDeployment();
      return { token: token as unknown as ServiceErc20, factory, sender: sender! };
    }

    it("mints the initial supply to the minter, with the given name, symbol and decimals", async function () {
      const [, holder] = await ethers.getSigners();
      const { token } = await deployErc20({ decimals: 6, initialSupply: 1_000_000n, minter: holder!.address });
      expect(await token.name()).to.equal("Service Token");
      expect(await token.symbol()).to.equal("SVC");
      expect(await token.decimals()).to.equal(6n);
      expect(await token.totalSupply()).to.equal(1_000_000n);
      expect(await token.balanceOf(holder!.address)).to.equal(1_000_000n);
    });

    it("supports 18 decimals and an initial supply of zero", async function () {
      const { token, sender } = await deployErc20();
      expect(await token.decimals()).to.equal(18n);
      expect(await token.totalSupply()).to.equal(0n);
      expect(await token.balanceOf(sender.address)).to.equal(0n);
    });

    it("refuses an initial supply above the cap at deployment", async function () {
      const factory = await ethers.getContractFactory("ServiceERC20");
      const [sender] = await ethers.getSigners();
      const args = await expectRevert(
        factory.deploy("Capped", "CAP", 18, 100n, sender!.address, 101n, sender!.address),
        factory.interface,
        "ERC20ExceededCap",
      );
      expect(args[0]).to.equal(101n);
      expect(args[1]).to.equal(100n);
    });

    it("accepts an initial supply equal to the cap, then refuses any further mint", async function () {
      const { token, sender } = await deployErc20({ cap: 500n, initialSupply: 500n });
      expect(await token.cap()).to.equal(500n);
      await expectRevert(token.mint(sender.address, 1n), token.interface, "ERC20ExceededCap");
    });

    it("mints within the cap and refuses a mint that would exceed it", async function () {
      const [, other] = await ethers.getSigners();
      const { token, sender } = await deployErc20({ cap: 1000n, initialSupply: 400n });
      await (await token.mint(other!.address, 600n)).wait();
      expect(await token.balanceOf(other!.address)).to.equal(600n);
      expect(await token.totalSupply()).to.equal(1000n);
      const args = await expectRevert(token.mint(sender.address, 1n), token.interface, "ERC20ExceededCap");
      expect(args[0]).to.equal(1001n);
    });

    it("is uncapped with a cap of max uint256", async function () {
      const { token, sender } = await deployErc20({ initialSupply: 10n ** 40n });
      expect(await token.cap()).to.equal(MAX_UINT256);
      await (await token.mint(sender.address, 10n ** 60n)).wait();
      expect(await token.totalSupply()).to.equal(10n ** 60n + 10n ** 40n);
    });

    it("gives the account the admin and minter roles; nobody else may mint", async function () {
      const [, account, outsider] = await ethers.getSigners();
      const { token, sender } = await deployErc20({ account: account!.address });
      expect(await token.hasRole(DEFAULT_ADMIN_ROLE, account!.address)).to.equal(true);
      expect(await token.hasRole(MINTER_ROLE, account!.address)).to.equal(true);
      expect(await token.MINTER_ROLE()).to.equal(MINTER_ROLE);

      await (await token.connect(account!).mint(outsider!.address, 7n)).wait();
      expect(await token.balanceOf(outsider!.address)).to.equal(7n);

      for (const signer of [outsider!, sender]) {
        const args = await expectRevert(
          token.connect(signer).mint(signer.address, 1n),
          token.interface,
          "AccessControlUnauthorizedAccount",
        );
        expect(args[0]).to.equal(signer.address);
        expect(args[1]).to.equal(MINTER_ROLE);
      }
    });

    it("lets the admin grant the minter role to another address", async function () {
      const [, , newMinter] = await ethers.getSigners();
      const { token } = await deployErc20();
      await (await token.grantRole(MINTER_ROLE, newMinter!.address)).wait();
      await (await token.connect(newMinter!).mint(newMinter!.address, 3n)).wait();
      expect(await token.balanceOf(newMinter!.address)).to.equal(3n);
    });

    it("with an offline minter and account, the sender only pays: it holds no role and no tokens", async function () {
      const offlineMinter = Wallet.createRandom();
      const offlineAccount = Wallet.createRandom();
      const { token, sender } = await deployErc20({ minter: offlineMinter.address, account: offlineAccount.address, initialSupply: 42n });
      expect(await token.balanceOf(offlineMinter.address)).to.equal(42n);
      expect(await token.balanceOf(sender.address)).to.equal(0n);
      expect(await token.balanceOf(offlineAccount.address)).to.equal(0n);
      expect(await token.hasRole(DEFAULT_ADMIN_ROLE, offlineAccount.address)).to.equal(true);
      expect(await token.hasRole(MINTER_ROLE, offlineAccount.address)).to.equal(true);
      expect(await token.hasRole(DEFAULT_ADMIN_ROLE, sender.address)).to.equal(false);
      expect(await token.hasRole(MINTER_ROLE, sender.address)).to.equal(false);
      expect(await token.hasRole(MINTER_ROLE, offlineMinter.address)).to.equal(false);
      await expectRevert(token.mint(sender.address, 1n), token.interface, "AccessControlUnauthorizedAccount");
    });
  });

  describe("ServiceERC721", function () {
    async function deployErc721(baseUri = "ipfs://collection/") {
      const [sender] = await ethers.getSigners();
      const factory = await ethers.getContractFactory("ServiceERC721");
      const token = await factory.deploy("Service NFT", "SNFT", baseUri, sender!.address);
      await token.waitForDeployment();
      return { token: token as unknown as ServiceErc721, sender: sender! };
    }

    it("gives the sender the minter and admin roles; others cannot mint in any way", async function () {
      const [, outsider] = await ethers.getSigners();
      const { token, sender } = await deployErc721();
      expect(await token.name()).to.equal("Service NFT");
      expect(await token.symbol()).to.equal("SNFT");
      expect(await token.hasRole(MINTER_ROLE, sender.address)).to.equal(true);
      expect(await token.hasRole(DEFAULT_ADMIN_ROLE, sender.address)).to.equal(true);
      const asOutsider = token.connect(outsider!);
      await expectRevert(asOutsider["mint(address)"](outsider!.address), token.interface, "AccessControlUnauthorizedAccount");
      await expectRevert(
        asOutsider["mint(address,string)"](outsider!.address, "ipfs://mine"),
        token.interface,
        "AccessControlUnauthorizedAccount",
      );
      await expectRevert(asOutsider.mintWithId(outsider!.address, 99n, ""), token.interface, "AccessControlUnauthorizedAccount");
      expect(await token.totalSupply()).to.equal(0n);
    });

    it("numbers tokens from 1 and builds tokenURI from the base URI and the id", async function () {
      const [, holder] = await ethers.getSigners();
      const { token } = await deployErc721("https://example.test/meta/");
      await (await token["mint(address)"](holder!.address)).wait();
      await (await token["mint(address)"](holder!.address)).wait();
      expect(await token.ownerOf(1n)).to.equal(holder!.address);
      expect(await token.ownerOf(2n)).to.equal(holder!.address);
      expect(await token.tokenURI(1n)).to.equal("https://example.test/meta/1");
      expect(await token.tokenURI(2n)).to.equal("https://example.test/meta/2");
    });

    it("returns an empty tokenURI when there is no base URI", async function () {
      const { token, sender } = await deployErc721("");
      await (await token["mint(address)"](sender.address)).wait();
      expect(await token.tokenURI(1n)).to.equal("");
    });

    it("keeps a per-token URI given at mint, and reverts for a token that does not exist", async function () {
      const { token, sender } = await deployErc721();
      await (await token["mint(address,string)"](sender.address, "ipfs://own-metadata.json")).wait();
      await (await token["mint(address)"](sender.address)).wait();
      expect(await token.tokenURI(1n)).to.equal("ipfs://own-metadata.json");
      expect(await token.tokenURI(2n)).to.equal("ipfs://collection/2");
      await expectRevert(token.tokenURI(3n), token.interface, "ERC721NonexistentToken");
    });

    it("mints a chosen id with mintWithId and refuses an id that is taken", async function () {
      const [, holder] = await ethers.getSigners();
      const { token, sender } = await deployErc721();
      await (await token.mintWithId(holder!.address, 1000n, "")).wait();
      await (await token.mintWithId(holder!.address, 7n, "ipfs://seven")).wait();
      expect(await token.ownerOf(1000n)).to.equal(holder!.address);
      expect(await token.tokenURI(1000n)).to.equal("ipfs://collection/1000");
      expect(await token.tokenURI(7n)).to.equal("ipfs://seven");
      await expectRevert(token.mintWithId(sender.address, 7n, ""), token.interface, "ERC721InvalidSender");
      expect(await token.ownerOf(7n)).to.equal(holder!.address);
    });

    it("mint() skips ids already taken by mintWithId", async function () {
      const { token, sender } = await deployErc721();
      await (await token.mintWithId(sender.address, 1n, "")).wait();
      await (await token.mintWithId(sender.address, 2n, "")).wait();
      await (await token.mintWithId(sender.address, 4n, "")).wait();
      const ids: bigint[] = [];
      for (let i = 0; i < 3; i++) {
        const receipt = await (await token["mint(address)"](sender.address)).wait();
        const transfer = receipt!.logs.map((log) => token.interface.parseLog(log)).find((log) => log?.name === "Transfer");
        ids.push(transfer!.args[2] as bigint);
      }
      expect(ids).to.deep.equal([3n, 5n, 6n]);
    });

    it("enumerates a holder's tokens and all tokens", async function () {
      const [, alice, bob] = await ethers.getSigners();
      const { token } = await deployErc721();
      await (await token["mint(address)"](alice!.address)).wait();
      await (await token["mint(address)"](bob!.address)).wait();
      await (await token.mintWithId(alice!.address, 50n, "")).wait();
      expect(await token.balanceOf(alice!.address)).to.equal(2n);
      expect(await token.tokenOfOwnerByIndex(alice!.address, 0n)).to.equal(1n);
      expect(await token.tokenOfOwnerByIndex(alice!.address, 1n)).to.equal(50n);
      expect(await token.tokenOfOwnerByIndex(bob!.address, 0n)).to.equal(2n);
      await expectRevert(token.tokenOfOwnerByIndex(bob!.address, 1n), token.interface, "ERC721OutOfBoundsIndex");
      expect(await token.totalSupply()).to.equal(3n);
      expect(await token.tokenByIndex(2n)).to.equal(50n);

      // A transfer moves the id between the holders' enumerations.
      await (await token.connect(alice!).transferFrom(alice!.address, bob!.address, 1n)).wait();
      expect(await token.balanceOf(alice!.address)).to.equal(1n);
      expect(await token.tokenOfOwnerByIndex(alice!.address, 0n)).to.equal(50n);
      expect(await token.tokenOfOwnerByIndex(bob!.address, 1n)).to.equal(1n);
    });

    it("declares ERC721, ERC721Enumerable, ERC721Metadata and AccessControl support", async function () {
      const { token } = await deployErc721();
      for (const id of ["0x80ac58cd", "0x780e9d63", "0x5b5e139f", "0x7965db0b", "0x01ffc9a7"]) {
        expect(await token.supportsInterface(id), id).to.equal(true);
      }
      expect(await token.supportsInterface("0xffffffff")).to.equal(false);
    });
  });

  describe("shipped artifacts", function () {
    it("src/artifacts/*.json carry exactly the ABI and bytecode of the freshly compiled contracts", async function () {
      await hre.tasks.getTask("build").run({ quiet: true });
      for (const name of ["ServiceERC20", "ServiceERC721", "BalanceReader"]) {
        const compiled = await hre.artifacts.readArtifact(name);
        const shipped = JSON.parse(await readFile(path.join(import.meta.dirname, "../..", "src", "artifacts", `${name}.json`), "utf8"));
        expect(shipped.contractName).to.equal(name);
        expect(shipped.bytecode, `${name} bytecode is stale: run npm run build:contracts`).to.equal(compiled.bytecode);
        expect(shipped.abi, `${name} ABI is stale: run npm run build:contracts`).to.deep.equal(compiled.abi);
      }
    });
  });
});
