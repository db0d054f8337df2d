import { expect } from "chai";
import { JsonRpcProvider, Signature, Wallet, toQuantity, type AbstractProvider } from "ethers";
import hre from "hardhat";

import { createTokenService, resolveNetwork, type TokenService } from "../../src/api.js";
import { ErrorCode } from "../../src/domain/errors.js";
import { startAnvil } from "../helpers/anvil.js";
import { expectServiceError } from "../helpers/errors.js";
import { expectMined, type Pair } from "../helpers/service.js";
import {
  DEFAULT_ADMIN_ROLE,
  ERC1155_ABI,
  ERC20_ABI,
  ERC2981_INTERFACE_ID,
  ERC721_ABI,
  MINTER_ROLE,
  PAUSER_ROLE,
  expectAbsent,
  expectRevertWith,
  independentProvider,
  token,
} from "../helpers/token-client.js";

/** A chain the service writes to, and the test's own client of the same node. */
interface Node {
  pair: Pair;
  service: TokenService;
  provider: AbstractProvider;
  fund(address: string): Promise<void>;
  close(): Promise<void>;
}

async function simulatedNode(): Promise<Node> {
  const service = await createTokenService({ hre, env: {} });
  const pair = { chain: "ethereum", network: "sepolia" };
  const chain = await service.evmChain(resolveNetwork(pair.chain, pair.network), "test");
  return {
    pair,
    service,
    provider: independentProvider(chain),
    fund: async (address) => void (await service.faucet({ ...pair, address })),
    close: () => service.close(),
  };
}

/** Foundry's anvil as ethereum/holesky, a live network to the service. */
async function anvilNode(): Promise<Node> {
  const anvil = await startAnvil({ chainId: 17000 });
  const service = await createTokenService({ hre, env: {}, rpcUrls: { "ethereum/holesky": anvil.url } });
  const provider = new JsonRpcProvider(anvil.url, 17000, { staticNetwork: true, cacheTimeout: -1 });
  return {
    pair: { chain: "ethereum", network: "holesky" },
    service,
    provider,
    fund: async (address) => void (await provider.send("anvil_setBalance", [address, toQuantity(10n ** 20n)])),
    close: async () => {
      await service.close();
      provider.destroy();
      await anvil.stop();
    },
  };
}

for (const [label, start] of [
  ["a simulated chain (EDR)", simulatedNode],
  ["anvil (a live node over HTTP)", anvilNode],
] as const) {
  describe(`token options on ${label}, checked by the test's own ethers client`, function () {
    let node: Node;
    let owner: Wallet;
    let other: Wallet;

    /** Launches through the service, waits for mining (read from the node), answers the contract's address. */
    async function launched(type: string, fields: Record<string, unknown>): Promise<string> {
      const result = await node.service.launch({ ...node.pair, type, token: fields, sender: owner.address, privateKey: owner.privateKey });
      await expectMined(node.service, node.pair, result.transactionHash);
      expect(await node.provider.getCode(result.contractAddress)).to.not.equal("0x");
      return result.contractAddress;
    }

    const mined = async (sent: Promise<{ wait(): Promise<unknown> }>) => (await sent).wait();

    before(async function () {
      node = await start();
      owner = new Wallet(Wallet.createRandom().privateKey, node.provider);
      other = new Wallet(Wallet.createRandom().privateKey, node.provider);
      await node.fund(owner.address);
      await node.fund(other.address);
    });

    after(async function () {
      await node?.close();
    });

    describe("ERC20", function () {
      let full: string;
      let none: string;

      before(async function () {
        full = await launched("ERC20", {
          name: "Full",
          symbol: "FUL",
          initialSupply: "1000",
          totalSupply: "5000",
          options: { burnable: true, pausable: true, permit: true, capped: true, mintable: true, votes: true, access: "ownable" },
        });
        none = await launched("ERC20", { name: "Bare", symbol: "BAR", initialSupply: "1000", options: {} });
      });

      it("the metadata read names the options it finds, and none the token lacks", async function () {
        const featuresOf = async (contractAddress: string) => (await node.service.getTokenInfo({ ...node.pair, contractAddress })).features;
        expect(await featuresOf(full)).to.deep.equal([
          "batchMint",
          "burnable",
          "capped",
          "mintable",
          "ownable",
          "pausable",
          "permit",
          "votes",
        ]);
        expect(await featuresOf(none)).to.deep.equal(["accessControl"]);
      });

      it("burnable: a holder burns with ERC20Burnable; without the option there is no burn", async function () {
        const contract = token(full, ERC20_ABI, owner);
        await mined(contract.burn!(100n));
        expect(await contract.balanceOf!(owner.address)).to.equal(900n);
        expect(await contract.totalSupply!()).to.equal(900n);
        await expectAbsent(node.provider, none, "burn(uint256)", [1n], owner.address);
        await expectAbsent(node.provider, none, "burnFrom(address,uint256)", [owner.address, 1n], owner.address);
      });

      it("pausable: pause stops transfers until unpause, for the owner only; without the option there is no pause", async function () {
        const contract = token(full, ERC20_ABI, owner);
        await expectRevertWith(contract.connect(other).getFunction("pause")(), contract, "OwnableUnauthorizedAccount");
        await mined(contract.pause!());
        expect(await contract.paused!()).to.equal(true);
        await expectRevertWith(contract.transfer!(other.address, 1n), contract, "EnforcedPause");
        await mined(contract.unpause!());
        await mined(contract.transfer!(other.address, 1n));
        expect(await contract.balanceOf!(other.address)).to.equal(1n);
        await expectAbsent(node.provider, none, "pause()", [], owner.address);
        await expectAbsent(node.provider, none, "paused()");
      });

      it("permit: an EIP-2612 approval signed by the holder is accepted; without the option there is no permit, nonces or domain", async function () {
        const contract = token(full, ERC20_ABI, other);
        const { chainId } = await node.provider.getNetwork();
        const deadline = BigInt((await node.provider.getBlock("latest"))!.timestamp + 3600);
        const nonce = (await contract.nonces!(owner.address)) as bigint;
        const signature = Signature.from(
          await owner.signTypedData(
            { name: "Full", version: "1", chainId, verifyingContract: full },
            {
              Permit: [
                { name: "owner", type: "address" },
                { name: "spender", type: "address" },
                { name: "value", type: "uint256" },
                { name: "nonce", type: "uint256" },
                { name: "deadline", type: "uint256" },
              ],
            },
            { owner: owner.address, spender: other.address, value: 250n, nonce, deadline },
          ),
        );
        // Sent by the spender: the holder only signed.
        await mined(contract.permit!(owner.address, other.address, 250n, deadline, signature.v, signature.r, signature.s));
        expect(await contract.allowance!(owner.address, other.address)).to.equal(250n);
        expect(await contract.nonces!(owner.address)).to.equal(nonce + 1n);
        // The same signature again: its nonce is spent.
        await expectRevertWith(
          contract.permit!(owner.address, other.address, 250n, deadline, signature.v, signature.r, signature.s),
          contract,
          "ERC2612InvalidSigner",
        );
        await expectAbsent(node.provider, none, "permit(address,address,uint256,uint256,uint8,bytes32,bytes32)", [
          owner.address,
          other.address,
          250n,
          deadline,
          signature.v,
          signature.r,
          signature.s,
        ]);
        await expectAbsent(node.provider, none, "nonces(address)", [owner.address]);
        await expectAbsent(node.provider, none, "DOMAIN_SEPARATOR()");
      });

      it("capped: cap() is token.totalSupply and no mint passes it; without the option there is no cap", async function () {
        const contract = token(full, ERC20_ABI, owner);
        expect(await contract.cap!()).to.equal(5000n);
        const supply = (await contract.totalSupply!()) as bigint;
        await expectRevertWith(contract.mint!(owner.address, 5001n - supply), contract, "ERC20ExceededCap");
        await expectAbsent(node.provider, none, "cap()");
      });

      it("mintable: the owner mints and nobody else; without the option there is no mint", async function () {
        const contract = token(full, ERC20_ABI, owner);
        await mined(contract.mint!(other.address, 5n));
        expect(await contract.balanceOf!(other.address)).to.equal(6n);
        await expectRevertWith(contract.connect(other).getFunction("mint")(other.address, 1n), contract, "OwnableUnauthorizedAccount");
        await expectAbsent(node.provider, none, "mint(address,uint256)", [owner.address, 1n], owner.address);
      });

      it("votes: delegating to oneself counts the balance as votes; without the option there are no votes", async function () {
        const contract = token(full, ERC20_ABI, owner);
        expect(await contract.getVotes!(owner.address)).to.equal(0n);
        await mined(contract.delegate!(owner.address));
        expect(await contract.delegates!(owner.address)).to.equal(owner.address);
        expect(await contract.getVotes!(owner.address)).to.equal(await contract.balanceOf!(owner.address));
        await expectAbsent(node.provider, none, "delegate(address)", [owner.address], owner.address);
        await expectAbsent(node.provider, none, "getVotes(address)", [owner.address]);
      });

      it("access: ownable has an owner and no roles; roles (the default) grants the account admin, minter and pauser", async function () {
        const ownable = token(full, ERC20_ABI, owner);
        expect(await ownable.owner!()).to.equal(owner.address);
        await expectAbsent(node.provider, full, "hasRole(bytes32,address)", [MINTER_ROLE, owner.address]);

        const bare = token(none, ERC20_ABI, owner);
        expect(await bare.hasRole!(DEFAULT_ADMIN_ROLE, owner.address)).to.equal(true);
        expect(await bare.hasRole!(MINTER_ROLE, owner.address)).to.equal(false);
        await expectAbsent(node.provider, none, "owner()");

        const account = Wallet.createRandom().address;
        const withRoles = await launched("ERC20", { name: "Roles", symbol: "ROL", account, options: { mintable: true, pausable: true } });
        const roles = token(withRoles, ERC20_ABI, owner);
        for (const role of [DEFAULT_ADMIN_ROLE, MINTER_ROLE, PAUSER_ROLE]) expect(await roles.hasRole!(role, account)).to.equal(true);
        expect(await roles.hasRole!(MINTER_ROLE, owner.address)).to.equal(false);
        await expectRevertWith(roles.mint!(owner.address, 1n), roles, "AccessControlUnauthorizedAccount");
      });

      it("the service mints on a variant with mintable and roles, as on the historic contract", async function () {
        const address = await launched("ERC20", { name: "Mint", symbol: "MNT", options: { mintable: true } });
        const minted = await node.service.mint({
          ...node.pair,
          type: "ERC20",
          contractAddress: address,
          to: other.address,
          amount: "42",
          sender: owner.address,
          privateKey: owner.privateKey,
        });
        await expectMined(node.service, node.pair, minted.transactionHash);
        expect(await token(address, ERC20_ABI, node.provider).balanceOf!(other.address)).to.equal(42n);
      });
    });

    describe("ERC721", function () {
      const receiver = Wallet.createRandom().address;
      let full: string;
      let none: string;

      before(async function () {
        full = await launched("ERC721", {
          name: "Full Art",
          symbol: "FART",
          uri: "ipfs://base/",
          options: { burnable: true, pausable: true, enumerable: true, uriStorage: true, royalty: { receiver, basisPoints: 250 } },
        });
        none = await launched("ERC721", { name: "Bare Art", symbol: "BART", uri: "https://bare.example/", options: { access: "ownable" } });
      });

      it("the metadata read names the options it finds, and none the token lacks", async function () {
        const featuresOf = async (contractAddress: string) => (await node.service.getTokenInfo({ ...node.pair, contractAddress })).features;
        expect(await featuresOf(full)).to.deep.equal([
          "accessControl",
          "batchMint",
          "burnable",
          "enumerable",
          "metadata",
          "mintable",
          "pausable",
          "royalties",
          "uriStorage",
        ]);
        expect(await featuresOf(none)).to.deep.equal(["batchMint", "metadata", "mintable", "ownable"]);
      });

      it("mints from id 1 for the minter role; uriStorage keeps a URI per token, appended to the base", async function () {
        const contract = token(full, ERC721_ABI, owner);
        await mined(contract.getFunction("mint(address)")(owner.address));
        await mined(contract.getFunction("mint(address,string)")(owner.address, "two.json"));
        await mined(contract.getFunction("mintWithId(address,uint256)")(other.address, 10n));
        expect(await contract.ownerOf!(1n)).to.equal(owner.address);
        expect(await contract.tokenURI!(1n)).to.equal("ipfs://base/1");
        expect(await contract.tokenURI!(2n)).to.equal("ipfs://base/two.json");
        expect(await contract.ownerOf!(10n)).to.equal(other.address);
        await expectRevertWith(
          contract.connect(other).getFunction("mint(address)")(other.address),
          contract,
          "AccessControlUnauthorizedAccount",
        );
      });

      it("without uriStorage there is no mint with a URI, and tokenURI is the base and the id", async function () {
        const contract = token(none, ERC721_ABI, owner);
        await mined(contract.getFunction("mint(address)")(owner.address));
        expect(await contract.tokenURI!(1n)).to.equal("https://bare.example/1");
        await expectAbsent(node.provider, none, "mint(address,string)", [owner.address, "x"], owner.address);
        await expectAbsent(node.provider, none, "mintWithId(address,uint256,string)", [owner.address, 5n, "x"], owner.address);
      });

      it("enumerable: tokenOfOwnerByIndex lists a holder's ids (and the balance read lists them); without it, neither", async function () {
        const contract = token(full, ERC721_ABI, owner);
        expect(await contract.tokenOfOwnerByIndex!(owner.address, 1n)).to.equal(2n);
        expect(await contract.totalSupply!()).to.equal(3n);
        const listed = await node.service.getTokenBalance({ ...node.pair, type: "erc721", address: owner.address, tokenAddress: full });
        expect(listed).to.include({ balance: "2" });
        expect(listed.tokenIds).to.deep.equal(["1", "2"]);
        await expectAbsent(node.provider, none, "tokenOfOwnerByIndex(address,uint256)", [owner.address, 0n]);
        await expectAbsent(node.provider, none, "totalSupply()");
        const unlisted = await node.service.getTokenBalance({ ...node.pair, type: "erc721", address: owner.address, tokenAddress: none });
        expect(unlisted).to.include({ balance: "1" });
        expect(unlisted.tokenIds).to.deep.equal([]);
      });

      it("royalty: royaltyInfo answers the receiver and 2.5 % (ERC-2981); without it, no royaltyInfo and no ERC-2981 support", async function () {
        const contract = token(full, ERC721_ABI, node.provider);
        const [to, amount] = (await contract.royaltyInfo!(1n, 10_000n)) as [string, bigint];
        expect(to).to.equal(receiver);
        expect(amount).to.equal(250n);
        expect(await contract.supportsInterface!(ERC2981_INTERFACE_ID)).to.equal(true);
        expect(await token(none, ERC721_ABI, node.provider).supportsInterface!(ERC2981_INTERFACE_ID)).to.equal(false);
        await expectAbsent(node.provider, none, "royaltyInfo(uint256,uint256)", [1n, 10_000n]);
      });

      it("pausable and burnable: paused, no transfer; a holder burns; without them, neither function", async function () {
        const contract = token(full, ERC721_ABI, owner);
        await mined(contract.pause!());
        await expectRevertWith(contract.transferFrom!(owner.address, other.address, 1n), contract, "EnforcedPause");
        await mined(contract.unpause!());
        await mined(contract.burn!(1n));
        await expectRevertWith(contract.ownerOf!(1n), contract, "ERC721NonexistentToken");
        await expectAbsent(node.provider, none, "pause()", [], owner.address);
        await expectAbsent(node.provider, none, "burn(uint256)", [1n], owner.address);
      });

      it("access ownable: the sender owns the collection and alone mints", async function () {
        const contract = token(none, ERC721_ABI, owner);
        expect(await contract.owner!()).to.equal(owner.address);
        await expectRevertWith(contract.connect(other).getFunction("mint(address)")(other.address), contract, "OwnableUnauthorizedAccount");
        await expectAbsent(node.provider, none, "hasRole(bytes32,address)", [MINTER_ROLE, owner.address]);
      });
    });

    describe("ERC1155", function () {
      const receiver = Wallet.createRandom().address;
      let full: string;
      let none: string;

      before(async function () {
        full = await launched("SERVICE_ERC1155", {
          name: "Items",
          uri: "https://items.example/{id}.json",
          options: { burnable: true, pausable: true, supply: true, royalty: { receiver, basisPoints: 500 } },
        });
        none = await launched("erc1155", { name: "Bare Items", uri: "ipfs://bare/{id}", options: { access: "ownable" } });
      });

      it("the metadata read names the options it finds, and none the token lacks", async function () {
        const featuresOf = async (contractAddress: string) => (await node.service.getTokenInfo({ ...node.pair, contractAddress })).features;
        expect(await featuresOf(full)).to.deep.equal([
          "accessControl",
          "batchMint",
          "burnable",
          "metadata",
          "mintable",
          "pausable",
          "royalties",
          "supply",
        ]);
        expect(await featuresOf(none)).to.deep.equal(["batchMint", "metadata", "mintable", "ownable"]);
      });

      it("launches a collection: its name, and one URI with {id} for every id (clients substitute it)", async function () {
        const contract = token(full, ERC1155_ABI, node.provider);
        expect(await contract.name!()).to.equal("Items");
        expect(await contract.uri!(1n)).to.equal("https://items.example/{id}.json");
        expect(await contract.uri!(12345n)).to.equal("https://items.example/{id}.json");
        expect(await contract.supportsInterface!("0xd9b67a26")).to.equal(true);
        expect(await contract.hasRole!(MINTER_ROLE, owner.address)).to.equal(true);
      });

      it("mint and mintBatch for the minter; the balance read answers each id asked and their sum", async function () {
        const contract = token(full, ERC1155_ABI, owner);
        await mined(contract.mint!(other.address, 1n, 10n, "0x"));
        await mined(contract.mintBatch!(other.address, [2n, 3n], [20n, 30n], "0x"));
        await expectRevertWith(
          contract.connect(other).getFunction("mint")(other.address, 1n, 1n, "0x"),
          contract,
          "AccessControlUnauthorizedAccount",
        );
        const read = await node.service.getTokenBalance({
          ...node.pair,
          type: "ERC1155",
          address: other.address,
          tokenAddress: full,
          tokenId: ["1,3", "4"],
        });
        expect(read).to.include({ type: "erc1155", balance: "40", address: other.address, tokenAddress: full });
        expect(read.tokenBalances).to.deep.equal([
          { tokenId: "1", balance: "10" },
          { tokenId: "3", balance: "30" },
          { tokenId: "4", balance: "0" },
        ]);
      });

      it("supply: totalSupply(id) and exists(id); without it, neither", async function () {
        const contract = token(full, ERC1155_ABI, node.provider);
        expect(await contract.totalSupply!(2n)).to.equal(20n);
        expect(await contract.exists!(2n)).to.equal(true);
        expect(await contract.exists!(9n)).to.equal(false);
        await expectAbsent(node.provider, none, "totalSupply(uint256)", [2n]);
        await expectAbsent(node.provider, none, "exists(uint256)", [2n]);
      });

      it("burnable, pausable and royalty, present or absent", async function () {
        const contract = token(full, ERC1155_ABI, other);
        await mined(contract.burn!(other.address, 2n, 5n));
        expect(await contract.balanceOf!(other.address, 2n)).to.equal(15n);
        await mined(contract.connect(owner).getFunction("pause")());
        await expectRevertWith(contract.safeTransferFrom!(other.address, owner.address, 2n, 1n, "0x"), contract, "EnforcedPause");
        await mined(contract.connect(owner).getFunction("unpause")());
        const [to, amount] = (await contract.royaltyInfo!(2n, 1000n)) as [string, bigint];
        expect([to, amount]).to.deep.equal([receiver, 50n]);
        await expectAbsent(node.provider, none, "burn(address,uint256,uint256)", [owner.address, 1n, 1n], owner.address);
        await expectAbsent(node.provider, none, "pause()", [], owner.address);
        await expectAbsent(node.provider, none, "royaltyInfo(uint256,uint256)", [1n, 1000n]);
      });

      it("access ownable: the sender owns it and alone mints", async function () {
        const contract = token(none, ERC1155_ABI, owner);
        expect(await contract.owner!()).to.equal(owner.address);
        await mined(contract.mint!(other.address, 7n, 1n, "0x"));
        await expectRevertWith(
          contract.connect(other).getFunction("mint")(other.address, 7n, 1n, "0x"),
          contract,
          "OwnableUnauthorizedAccount",
        );
      });
    });

    describe("launches without options, as before options existed", function () {
      it("deploy the historic ServiceERC20: capped at totalSupply or uncapped, mintable, roles", async function () {
        const uncapped = await launched("ERC20", { name: "Old", symbol: "OLD", initialSupply: "7" });
        const contract = token(uncapped, ERC20_ABI, owner);
        expect(await contract.cap!()).to.equal((1n << 256n) - 1n);
        expect(await contract.hasRole!(MINTER_ROLE, owner.address)).to.equal(true);
        await expectAbsent(node.provider, uncapped, "burn(uint256)", [1n], owner.address);
        await expectAbsent(node.provider, uncapped, "nonces(address)", [owner.address]);
        const capped = await launched("ERC20", { name: "Old", symbol: "OLD", initialSupply: "7", totalSupply: "10" });
        expect(await token(capped, ERC20_ABI, owner).cap!()).to.equal(10n);
      });

      it("deploy the historic ServiceERC721: enumerable, a URI of its own replacing the base", async function () {
        const address = await launched("ERC721", { name: "Old Art", symbol: "OART", uri: "ipfs://old/" });
        const contract = token(address, ERC721_ABI, owner);
        await mined(contract.getFunction("mint(address,string)")(owner.address, "ipfs://own.json"));
        expect(await contract.tokenURI!(1n)).to.equal("ipfs://own.json");
        expect(await contract.tokenOfOwnerByIndex!(owner.address, 0n)).to.equal(1n);
        await expectAbsent(node.provider, address, "royaltyInfo(uint256,uint256)", [1n, 100n]);
      });
    });
  });
}

describe("token options: what the service refuses before anything is signed", function () {
  let service: TokenService;
  const pair = { chain: "ethereum", network: "sepolia" };
  const sender = Wallet.createRandom();

  before(async function () {
    service = await createTokenService({ hre, env: {} });
  });

  after(async function () {
    await service?.close();
  });

  const launch = (type: string, token: unknown, extra: Record<string, unknown> = {}) =>
    service.launch({ ...pair, type, token, sender: sender.address, privateKey: sender.privateKey, ...extra });

  it("names the field of each bad option", async function () {
    const cases: Array<[string, unknown, string]> = [
      ["ERC20", { name: "A", symbol: "A", options: { mintabel: true } }, "token.options.mintabel"],
      ["ERC20", { name: "A", symbol: "A", options: { burnable: "yes" } }, "token.options.burnable"],
      ["ERC20", { name: "A", symbol: "A", options: { access: "admin" } }, "token.options.access"],
      ["ERC20", { name: "A", symbol: "A", options: { capped: true } }, "token.totalSupply"],
      ["ERC20", { name: "A", symbol: "A", totalSupply: "10", options: {} }, "token.options.capped"],
      ["ERC20", { name: "A", symbol: "A", initialSupply: (1n << 208n).toString(), options: { votes: true } }, "token.initialSupply"],
      ["ERC20", { name: "A", symbol: "A", options: [] }, "token.options"],
      ["ERC20", { name: "A", symbol: "A", options: { royalty: { receiver: sender.address, basisPoints: 1 } } }, "token.options.royalty"],
      [
        "ERC721",
        { name: "A", symbol: "A", options: { royalty: { receiver: sender.address, basisPoints: 10_001 } } },
        "token.options.royalty.basisPoints",
      ],
      [
        "ERC721",
        { name: "A", symbol: "A", options: { royalty: { receiver: "0x" + "00".repeat(20), basisPoints: 1 } } },
        "token.options.royalty.receiver",
      ],
      ["ERC721", { name: "A", symbol: "A", options: { royalty: { receiver: sender.address } } }, "token.options.royalty.basisPoints"],
      ["ERC721", { name: "A", symbol: "A", options: { votes: "yes" } }, "token.options.votes"],
      ["ERC1155", { name: "A", uri: "ipfs://a/{id}", options: { enumerable: true } }, "token.options.enumerable"],
      ["ERC1155", { name: "A", symbol: "A" }, "token.symbol"],
      ["ERC1155", { uri: "ipfs://a/{id}" }, "token.name"],
    ];
    for (const [type, fields, field] of cases) await expectServiceError(launch(type, fields), ErrorCode.INVALID_ARGUMENT, field);
    await expectServiceError(
      launch("ERC721", { name: "A", symbol: "A", options: { royalty: { receiver: "0x1234", basisPoints: 1 } } }),
      ErrorCode.INVALID_ADDRESS,
      "token.options.royalty.receiver",
    );
  });

  it("refuses a salt that is not 32 bytes of 0x hex", async function () {
    for (const salt of ["0x1234", "11".repeat(32), `0x${"zz".repeat(32)}`, `0x${"11".repeat(33)}`, 42]) {
      await expectServiceError(launch("ERC20", { name: "A", symbol: "A" }, { salt }), ErrorCode.INVALID_ARGUMENT, "salt");
    }
  });

  it("refuses an ERC1155 mint without the id to mint, and tokenId outside an ERC1155 balance read", async function () {
    await expectServiceError(
      service.mint({
        ...pair,
        type: "ERC1155",
        contractAddress: sender.address,
        to: sender.address,
        amount: "1",
        sender: sender.address,
        privateKey: sender.privateKey,
      }),
      ErrorCode.INVALID_ARGUMENT,
      "tokenId",
    );
    const read = { ...pair, address: sender.address, tokenAddress: sender.address };
    await expectServiceError(service.getTokenBalance({ ...read, type: "erc20", tokenId: "1" }), ErrorCode.INVALID_ARGUMENT, "tokenId");
    await expectServiceError(service.getTokenBalance({ ...read, type: "erc1155" }), ErrorCode.INVALID_ARGUMENT, "tokenId");
    await expectServiceError(service.getTokenBalance({ ...read, type: "erc1155", tokenId: "1,x" }), ErrorCode.INVALID_ARGUMENT, "tokenId");
    const many = Array.from({ length: 51 }, (_, index) => String(index)).join(",");
    await expectServiceError(service.getTokenBalance({ ...read, type: "erc1155", tokenId: many }), ErrorCode.INVALID_ARGUMENT, "tokenId");
  });
});
