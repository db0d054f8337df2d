import { expect } from "chai";
import { Contract, Wallet as EthersWallet, ZeroAddress, ZeroHash, id, parseEther } from "ethers";

import type { TokenService } from "../../src/api.js";
import { ErrorCode } from "../../src/domain/errors.js";
import type { Wallet } from "../../src/core/wallets.js";
import { expectOperationMined } from "../helpers/service.js";
import { SEPOLIA, environments, expectRefusedBeforeSigning, type Environment } from "../helpers/write-environments.js";

// Burns, pauses, role grants and revokes and ownership transfers through the one write pipeline, on the simulated chain
// and on anvil; every effect read back from the node with ethers, without the service.

const views = [
  "function balanceOf(address) view returns (uint256)",
  "function totalSupply() view returns (uint256)",
  "function balanceOf(address, uint256) view returns (uint256)",
  "function paused() view returns (bool)",
  "function hasRole(bytes32, address) view returns (bool)",
  "function owner() view returns (address)",
  "function ownerOf(uint256) view returns (address)",
  "function mint(address, uint256, uint256, bytes)",
  "function approve(address, uint256)",
];

const MINTER_ROLE = id("MINTER_ROLE");
const PAUSER_ROLE = id("PAUSER_ROLE");

for (const environment of environments) {
  describe(`burn, pause, roles and ownership on ${environment.name}`, function () {
    let env: Environment;
    let service: TokenService;
    let owner: Wallet;
    let other: Wallet;
    /** ERC20: burnable, pausable, mintable, roles. */
    let gold: string;
    /** ERC20: pausable, one owner. */
    let owned: string;
    /** ERC20 without options: no burn, no pause, roles. */
    let bare: string;
    /** ERC721: burnable, roles. */
    let art: string;
    /** ERC1155: burnable, roles. */
    let items: string;

    const as = (wallet: Wallet) => ({ sender: wallet.address, privateKey: wallet.privateKey });
    const onNode = (contract: string) => new Contract(contract, views, env.node);
    const mined = async <T extends { id: string; transactionHash: string }>(write: Promise<T>) => {
      const sent = await write;
      await expectOperationMined(service, sent);
      return sent;
    };

    /** A write that must be refused before anything is signed: no nonce used, no record written. */
    const refused = (action: () => Promise<unknown>, code: ErrorCode, field: string | undefined, by: Wallet = owner) =>
      expectRefusedBeforeSigning(env, by.address, action, code, field, [owner.privateKey, other.privateKey]);

    before(async function () {
      this.timeout(240_000);
      env = await environment.start();
      service = env.service;
      owner = await env.funded("10");
      other = await env.funded("1");
      const launch = async (type: string, token: Record<string, unknown>) =>
        (await mined(service.launch({ ...SEPOLIA, type, token, ...as(owner) }))).contractAddress;
      const supply = parseEther("1000").toString();
      gold = await launch("ERC20", {
        name: "Gold",
        symbol: "GLD",
        initialSupply: supply,
        options: { burnable: true, pausable: true, mintable: true, access: "roles" },
      });
      owned = await launch("ERC20", {
        name: "Owned",
        symbol: "OWN",
        initialSupply: supply,
        options: { pausable: true, access: "ownable" },
      });
      bare = await launch("ERC20", { name: "Bare", symbol: "BAR", initialSupply: supply, options: {} });
      art = await launch("ERC721", { name: "Art", symbol: "ART", uri: "ipfs://art/", options: { burnable: true } });
      for (let index = 0; index < 3; index++) {
        await mined(service.mint({ ...SEPOLIA, type: "ERC721", contractAddress: art, to: owner.address, ...as(owner) }));
      }
      items = await launch("ERC1155", { name: "Items", uri: "ipfs://items/{id}.json", options: { burnable: true } });
      const minter = new EthersWallet(owner.privateKey, env.node);
      await (await new Contract(items, views, minter).getFunction("mint")(owner.address, 7n, 100n, "0x")).wait();
    });

    after(async function () {
      await env?.close();
    });

    it("burns ERC20, ERC721 and ERC1155 tokens of the sender: the node's balances and supply fall by them", async function () {
      const burnt = await mined(
        service.burn({ ...SEPOLIA, type: "ERC20", contractAddress: gold, amount: parseEther("2.5").toString(), ...as(owner) }),
      );
      expect(burnt).to.include({ type: "ERC20", contractAddress: gold, sender: owner.address, amount: parseEther("2.5").toString() });
      expect(burnt).not.to.have.property("tokenId");
      const nft = await mined(service.burn({ ...SEPOLIA, type: "erc721", contractAddress: art, tokenId: "2", ...as(owner) }));
      expect(nft).to.include({ type: "ERC721", tokenId: "2" }).and.not.to.have.property("amount");
      const item = await mined(
        service.burn({ ...SEPOLIA, type: "ERC1155", contractAddress: items, tokenId: "7", amount: "30", ...as(owner) }),
      );
      expect(item).to.include({ type: "ERC1155", tokenId: "7", amount: "30" });

      expect(await onNode(gold).getFunction("balanceOf(address)")(owner.address)).to.equal(parseEther("997.5"));
      expect(await onNode(gold).getFunction("totalSupply")()).to.equal(parseEther("997.5"));
      expect(await onNode(art).getFunction("balanceOf(address)")(owner.address)).to.equal(2n);
      await onNode(art)
        .getFunction("ownerOf")(2n)
        .then(
          () => expect.fail("token 2 still exists"),
          (error: { code?: string }) => expect(error.code).to.equal("CALL_EXCEPTION"),
        );
      expect(await onNode(items).getFunction("balanceOf(address,uint256)")(owner.address, 7n)).to.equal(70n);

      const record = (await service.operations.store.getOperation(item.id))!;
      expect(record).to.include({ kind: "burn", tokenType: "ERC1155", contractAddress: items, sender: owner.address });
      expect(record.params).to.deep.equal({ contractAddress: items, tokenId: "7", amount: "30" });
      // An idempotent retry after a crash is answered from the record: what the burn settled to.
      expect(service.operations.outcomeOf(record)).to.deep.equal(await service.operations.settle(item, 1_000));
    });

    it("refuses, before signing, a burn the token cannot do or would revert, and bad input, naming the field", async function () {
      const noBurn = await refused(
        () => service.burn({ ...SEPOLIA, type: "ERC20", contractAddress: bare, amount: "1", ...as(owner) }),
        ErrorCode.NOT_SUPPORTED_BY_TOKEN,
        "contractAddress",
      );
      expect(noBurn.details).to.deep.equal({ contractAddress: bare, option: "burnable", function: "burn(uint256)" });
      const tooMuch = await refused(
        () => service.burn({ ...SEPOLIA, type: "ERC20", contractAddress: gold, amount: parseEther("5000").toString(), ...as(owner) }),
        ErrorCode.INSUFFICIENT_TOKEN_BALANCE,
        "amount",
      );
      expect(tooMuch.details).to.include({ reason: "ERC20InsufficientBalance" });
      expect(tooMuch.message).to.include("cannot burn");
      const notTheirs = await refused(
        () => service.burn({ ...SEPOLIA, type: "ERC721", contractAddress: art, tokenId: "1", ...as(other) }),
        ErrorCode.NOT_TOKEN_OWNER,
        "tokenId",
        other,
      );
      expect(notTheirs.details).to.deep.equal({ reason: "ERC721InsufficientApproval", owner: owner.address });
      await refused(
        () => service.burn({ ...SEPOLIA, type: "ERC721", contractAddress: art, tokenId: "99", ...as(owner) }),
        ErrorCode.NOT_TOKEN_OWNER,
        "tokenId",
      );
      const fewItems = await refused(
        () => service.burn({ ...SEPOLIA, type: "ERC1155", contractAddress: items, tokenId: "7", amount: "71", ...as(owner) }),
        ErrorCode.INSUFFICIENT_TOKEN_BALANCE,
        "amount",
      );
      expect(fewItems.details).to.include({ reason: "ERC1155InsufficientBalance", balance: "70" });
      // The ERC721 burn of an approved address goes through: ERC721Burnable lets whoever may move the token burn it.
      const holder = new EthersWallet(owner.privateKey, env.node);
      await (await new Contract(art, views, holder).getFunction("approve")(other.address, 3n)).wait();
      await mined(service.burn({ ...SEPOLIA, type: "ERC721", contractAddress: art, tokenId: "3", ...as(other) }));
      expect(await onNode(art).getFunction("balanceOf(address)")(owner.address)).to.equal(1n);

      const bad: Array<[Record<string, unknown>, string, ErrorCode]> = [
        [{ type: "ERC20", contractAddress: gold, amount: "0" }, "amount", ErrorCode.INVALID_ARGUMENT],
        [{ type: "ERC20", contractAddress: gold, amount: "-1" }, "amount", ErrorCode.INVALID_ARGUMENT],
        [{ type: "ERC20", contractAddress: gold }, "amount", ErrorCode.INVALID_ARGUMENT],
        [{ type: "ERC20", contractAddress: gold, amount: "1", tokenId: "1" }, "tokenId", ErrorCode.INVALID_ARGUMENT],
        [{ type: "ERC721", contractAddress: art, tokenId: "1", amount: "1" }, "amount", ErrorCode.INVALID_ARGUMENT],
        [{ type: "ERC1155", contractAddress: items, amount: "1" }, "tokenId", ErrorCode.INVALID_ARGUMENT],
        [{ type: "NATIVE", contractAddress: gold, amount: "1" }, "type", ErrorCode.INVALID_ARGUMENT],
        [{ type: "ERC20", contractAddress: "0x1234", amount: "1" }, "contractAddress", ErrorCode.INVALID_ADDRESS],
      ];
      for (const [fields, field, code] of bad) {
        await refused(
          () => service.burn({ ...SEPOLIA, ...(fields as { type: string; contractAddress: string }), ...as(owner) }),
          code,
          field,
        );
      }
    });

    it("pauses and unpauses: paused() on the node and in the token's metadata; a transfer or burn while paused is WOULD_REVERT EnforcedPause", async function () {
      const paused = await mined(service.pause({ ...SEPOLIA, contractAddress: gold, paused: true, ...as(owner) }));
      expect(paused).to.include({ contractAddress: gold, paused: true, sender: owner.address }).and.not.to.have.property("type");
      expect(await onNode(gold).getFunction("paused")()).to.equal(true);
      expect(await service.getTokenInfo({ ...SEPOLIA, contractAddress: gold })).to.include({ paused: true });
      const record = (await service.operations.store.getOperation(paused.id))!;
      expect(record).to.include({ kind: "pause", tokenType: null, contractAddress: gold });
      expect(record.params).to.deep.equal({ contractAddress: gold, paused: true });
      expect(service.operations.outcomeOf(record)).to.deep.equal(await service.operations.settle(paused, 1_000));

      for (const write of [
        () => service.transfer({ ...SEPOLIA, type: "ERC20", contractAddress: gold, to: other.address, amount: "1", ...as(owner) }),
        () => service.burn({ ...SEPOLIA, type: "ERC20", contractAddress: gold, amount: "1", ...as(owner) }),
      ]) {
        const error = await refused(write, ErrorCode.WOULD_REVERT, undefined);
        expect(error.details).to.deep.include({ error: "EnforcedPause", args: {} });
      }
      const twice = await refused(
        () => service.pause({ ...SEPOLIA, contractAddress: gold, paused: true, ...as(owner) }),
        ErrorCode.WOULD_REVERT,
        "paused",
      );
      expect(twice.details).to.deep.equal({ error: "EnforcedPause", args: {} });

      const unpaused = await mined(service.pause({ ...SEPOLIA, contractAddress: gold, paused: false, ...as(owner) }));
      expect(unpaused).to.include({ paused: false });
      expect(await onNode(gold).getFunction("paused")()).to.equal(false);
      expect(await service.getTokenInfo({ ...SEPOLIA, contractAddress: gold })).to.include({ paused: false });
      const notPaused = await refused(
        () => service.pause({ ...SEPOLIA, contractAddress: gold, paused: false, ...as(owner) }),
        ErrorCode.WOULD_REVERT,
        "paused",
      );
      expect(notPaused.details).to.deep.equal({ error: "ExpectedPause", args: {} });
      await mined(service.transfer({ ...SEPOLIA, type: "ERC20", contractAddress: gold, to: other.address, amount: "1", ...as(owner) }));

      // The owner of an Ownable token pauses it too.
      await mined(service.pause({ ...SEPOLIA, contractAddress: owned, paused: true, ...as(owner) }));
      expect(await onNode(owned).getFunction("paused")()).to.equal(true);
      await mined(service.pause({ ...SEPOLIA, contractAddress: owned, paused: false, ...as(owner) }));
    });

    it("refuses a pause the token cannot do, or that its sender may not make (AccessControlUnauthorizedAccount decoded)", async function () {
      const noPause = await refused(
        () => service.pause({ ...SEPOLIA, contractAddress: bare, paused: true, ...as(owner) }),
        ErrorCode.NOT_SUPPORTED_BY_TOKEN,
        "contractAddress",
      );
      expect(noPause.details).to.deep.include({ option: "pausable", function: "pause()" });
      const notPauser = await refused(
        () => service.pause({ ...SEPOLIA, contractAddress: gold, paused: true, ...as(other) }),
        ErrorCode.WOULD_REVERT,
        undefined,
        other,
      );
      expect(notPauser.details).to.deep.include({
        error: "AccessControlUnauthorizedAccount",
        args: { account: other.address, neededRole: PAUSER_ROLE },
      });
      const notOwner = await refused(
        () => service.pause({ ...SEPOLIA, contractAddress: owned, paused: true, ...as(other) }),
        ErrorCode.WOULD_REVERT,
        undefined,
        other,
      );
      expect(notOwner.details).to.deep.include({ error: "OwnableUnauthorizedAccount", args: { account: other.address } });
      await refused(
        () => service.pause({ ...SEPOLIA, contractAddress: gold, paused: "yes" as unknown as boolean, ...as(owner) }),
        ErrorCode.INVALID_ARGUMENT,
        "paused",
      );
      await refused(
        () => service.pause({ ...SEPOLIA, contractAddress: other.address, paused: true, ...as(owner) }),
        ErrorCode.NOT_A_TOKEN_CONTRACT,
        "contractAddress",
      );
    });

    it("grants and revokes roles: hasRole() on the node follows, and the new minter mints", async function () {
      const granted = await mined(
        service.grantRole({ ...SEPOLIA, contractAddress: gold, role: "MINTER_ROLE", account: other.address, ...as(owner) }),
      );
      expect(granted).to.include({ role: "MINTER_ROLE", roleId: MINTER_ROLE, account: other.address, contractAddress: gold });
      expect(await onNode(gold).getFunction("hasRole")(MINTER_ROLE, other.address)).to.equal(true);
      expect((await service.operations.store.getOperation(granted.id))?.kind).to.equal("grantRole");
      await mined(service.mint({ ...SEPOLIA, type: "ERC20", contractAddress: gold, to: other.address, amount: "5", ...as(other) }));

      const revoked = await mined(
        service.revokeRole({ ...SEPOLIA, contractAddress: gold, role: "MINTER_ROLE", account: other.address, ...as(owner) }),
      );
      expect((await service.operations.store.getOperation(revoked.id))?.kind).to.equal("revokeRole");
      expect(await onNode(gold).getFunction("hasRole")(MINTER_ROLE, other.address)).to.equal(false);
      await refused(
        () => service.mint({ ...SEPOLIA, type: "ERC20", contractAddress: gold, to: other.address, amount: "5", ...as(other) }),
        ErrorCode.NOT_A_MINTER,
        "sender",
        other,
      );

      // A role by its id, and the admin role itself.
      await mined(service.grantRole({ ...SEPOLIA, contractAddress: gold, role: PAUSER_ROLE, account: other.address, ...as(owner) }));
      expect(await onNode(gold).getFunction("hasRole")(PAUSER_ROLE, other.address)).to.equal(true);
      const admin = await mined(
        service.grantRole({ ...SEPOLIA, contractAddress: gold, role: "DEFAULT_ADMIN_ROLE", account: other.address, ...as(owner) }),
      );
      expect(admin).to.include({ roleId: ZeroHash });
      expect(await onNode(gold).getFunction("hasRole")(ZeroHash, other.address)).to.equal(true);
      await mined(
        service.revokeRole({ ...SEPOLIA, contractAddress: gold, role: "DEFAULT_ADMIN_ROLE", account: other.address, ...as(owner) }),
      );
      await mined(service.revokeRole({ ...SEPOLIA, contractAddress: gold, role: "PAUSER_ROLE", account: other.address, ...as(owner) }));
      expect(await onNode(gold).getFunction("hasRole")(ZeroHash, other.address)).to.equal(false);
    });

    it("refuses a role change the token cannot make, or its sender may not, and bad input", async function () {
      const notAdmin = await refused(
        () => service.grantRole({ ...SEPOLIA, contractAddress: gold, role: "MINTER_ROLE", account: other.address, ...as(other) }),
        ErrorCode.WOULD_REVERT,
        undefined,
        other,
      );
      expect(notAdmin.details).to.deep.include({
        error: "AccessControlUnauthorizedAccount",
        args: { account: other.address, neededRole: ZeroHash },
      });
      const ownable = await refused(
        () => service.grantRole({ ...SEPOLIA, contractAddress: owned, role: "MINTER_ROLE", account: other.address, ...as(owner) }),
        ErrorCode.NOT_SUPPORTED_BY_TOKEN,
        "contractAddress",
      );
      expect(ownable.details).to.deep.include({ option: "access", needed: "roles", found: "ownable" });
      const noPauser = await refused(
        () => service.grantRole({ ...SEPOLIA, contractAddress: bare, role: "PAUSER_ROLE", account: other.address, ...as(owner) }),
        ErrorCode.NOT_SUPPORTED_BY_TOKEN,
        "role",
      );
      expect(noPauser.details).to.deep.include({ option: "pausable", function: "PAUSER_ROLE()" });
      // A name the token does not define, a name JavaScript objects have (found by the HTTP fuzz), and one Solidity reserves.
      for (const role of ["MINTR_ROLE", "constructor", "function"]) {
        const undefinedRole = await refused(
          () => service.revokeRole({ ...SEPOLIA, contractAddress: gold, role, account: other.address, ...as(owner) }),
          ErrorCode.NOT_SUPPORTED_BY_TOKEN,
          "role",
        );
        expect(undefinedRole.details).to.deep.equal({ contractAddress: gold, function: `${role}()` });
      }
      for (const [fields, field, code] of [
        [{ role: "MINTER_ROLE", account: ZeroAddress }, "account", ErrorCode.INVALID_ARGUMENT],
        [{ role: "MINTER_ROLE", account: "0xnot" }, "account", ErrorCode.INVALID_ADDRESS],
        [{ role: "minter role", account: other.address }, "role", ErrorCode.INVALID_ARGUMENT],
        [{ role: "0x1234", account: other.address }, "role", ErrorCode.INVALID_ARGUMENT],
      ] as const) {
        await refused(() => service.grantRole({ ...SEPOLIA, contractAddress: gold, ...fields, ...as(owner) }), code, field);
      }
    });

    it("transfers ownership of an Ownable token: owner() on the node is the new owner, and the old one may no longer pause", async function () {
      const refusedRoles = await refused(
        () => service.transferOwnership({ ...SEPOLIA, contractAddress: gold, newOwner: other.address, ...as(owner) }),
        ErrorCode.NOT_SUPPORTED_BY_TOKEN,
        "contractAddress",
      );
      expect(refusedRoles.details).to.deep.include({ option: "access", needed: "ownable", found: "roles" });
      await refused(
        () => service.transferOwnership({ ...SEPOLIA, contractAddress: owned, newOwner: ZeroAddress, ...as(owner) }),
        ErrorCode.INVALID_ARGUMENT,
        "newOwner",
      );
      const notOwner = await refused(
        () => service.transferOwnership({ ...SEPOLIA, contractAddress: owned, newOwner: other.address, ...as(other) }),
        ErrorCode.WOULD_REVERT,
        undefined,
        other,
      );
      expect(notOwner.details).to.deep.include({ error: "OwnableUnauthorizedAccount" });

      const moved = await mined(service.transferOwnership({ ...SEPOLIA, contractAddress: owned, newOwner: other.address, ...as(owner) }));
      expect(moved).to.include({ contractAddress: owned, newOwner: other.address });
      expect((await service.operations.store.getOperation(moved.id))?.kind).to.equal("transferOwnership");
      expect(await onNode(owned).getFunction("owner")()).to.equal(other.address);
      expect(await service.getTokenInfo({ ...SEPOLIA, contractAddress: owned })).to.include({ owner: other.address });
      await refused(
        () => service.pause({ ...SEPOLIA, contractAddress: owned, paused: true, ...as(owner) }),
        ErrorCode.WOULD_REVERT,
        undefined,
      );
    });

    it("signs locally: a prepared burn, signed with ethers and submitted, is recorded and mined like a key-in-body one", async function () {
      const request = { ...SEPOLIA, type: "ERC20", contractAddress: gold, amount: "1000", sender: owner.address };
      const prepared = await service.prepare("burn", request);
      expect(prepared).to.include({ type: "ERC20", sender: owner.address });
      const before = (await onNode(gold).getFunction("balanceOf(address)")(owner.address)) as bigint;
      const signedTransaction = await new EthersWallet(owner.privateKey).signTransaction(prepared.unsignedTransaction);
      const burnt = await mined(service.burn({ ...request, signedTransaction }));
      expect(burnt).to.include({ amount: "1000", nonce: prepared.unsignedTransaction.nonce });
      expect(await onNode(gold).getFunction("balanceOf(address)")(owner.address)).to.equal(before - 1000n);
      // A write to any token names no standard: its prepare answers none.
      const pause = await service.prepare("pause", { ...SEPOLIA, contractAddress: gold, paused: true, sender: owner.address });
      expect(pause).not.to.have.property("type");
      expect(pause.unsignedTransaction.to).to.equal(gold);
    });
  });
}
