// The Solidity of every token variant, from one template per kind: OpenZeppelin's extensions composed as its Contracts
// Wizard (0.10) composes them (the same bases in the same order, the same overrides Solidity requires), plus the
// service's constructor arguments and mint functions (one recipient, or many in one transaction: `airdrop`,
// OpenZeppelin's internal `_mint` or `_safeMint` once per recipient). Nothing here implements token logic: each option
// is one audited extension. One departure, for EIP-1155's letter: an ERC1155 batch of one id asks its receiver for the
// batch hook (erc1155Parts). Its one job is the source text: `npm run build:contracts` writes token-variants/ from it
// and compiles the precompiled variants (scripts/build-token-variants.ts), and the service generates a variant with an
// option of FIRST_USE_FEATURES when it is first launched (first-use-compiler.ts). A test checks that the committed files
// are its output and that the shipped bytecode is theirs, so a change here that alters a precompiled variant fails it.
import { featureOrder, isPrecompiled, variantName, type TokenKind, type Variant } from "../../../domain/token-options.js";
import {
  authorizeUpgrade,
  initializerCalls,
  UPGRADEABLE_IMPORTS,
  upgradeableImport,
  upgradeableName,
  upgradeableNote,
} from "./upgradeable-source.js";

const OZ = "@openzeppelin/contracts";

/** Where each base contract comes from. */
const IMPORTS: Record<string, string> = {
  ERC20: `${OZ}/token/ERC20/ERC20.sol`,
  ERC20Burnable: `${OZ}/token/ERC20/extensions/ERC20Burnable.sol`,
  ERC20Pausable: `${OZ}/token/ERC20/extensions/ERC20Pausable.sol`,
  ERC20Permit: `${OZ}/token/ERC20/extensions/ERC20Permit.sol`,
  ERC20Capped: `${OZ}/token/ERC20/extensions/ERC20Capped.sol`,
  ERC20Votes: `${OZ}/token/ERC20/extensions/ERC20Votes.sol`,
  ERC20FlashMint: `${OZ}/token/ERC20/extensions/ERC20FlashMint.sol`,
  ERC1363: `${OZ}/token/ERC20/extensions/ERC1363.sol`,
  ERC721: `${OZ}/token/ERC721/ERC721.sol`,
  ERC721Burnable: `${OZ}/token/ERC721/extensions/ERC721Burnable.sol`,
  ERC721Pausable: `${OZ}/token/ERC721/extensions/ERC721Pausable.sol`,
  ERC721Enumerable: `${OZ}/token/ERC721/extensions/ERC721Enumerable.sol`,
  ERC721URIStorage: `${OZ}/token/ERC721/extensions/ERC721URIStorage.sol`,
  ERC721Votes: `${OZ}/token/ERC721/extensions/ERC721Votes.sol`,
  ERC1155: `${OZ}/token/ERC1155/ERC1155.sol`,
  ERC1155Burnable: `${OZ}/token/ERC1155/extensions/ERC1155Burnable.sol`,
  ERC1155Pausable: `${OZ}/token/ERC1155/extensions/ERC1155Pausable.sol`,
  ERC1155Supply: `${OZ}/token/ERC1155/extensions/ERC1155Supply.sol`,
  ERC1155Utils: `${OZ}/token/ERC1155/utils/ERC1155Utils.sol`,
  ERC2981: `${OZ}/token/common/ERC2981.sol`,
  EIP712: `${OZ}/utils/cryptography/EIP712.sol`,
  Nonces: `${OZ}/utils/Nonces.sol`,
  Ownable: `${OZ}/access/Ownable.sol`,
  AccessControl: `${OZ}/access/AccessControl.sol`,
  AccessManaged: `${OZ}/access/manager/AccessManaged.sol`,
};

/** The extension each option adds, per kind. */
const EXTENSION: Record<TokenKind, Record<string, string>> = {
  ERC20: {
    burnable: "ERC20Burnable",
    pausable: "ERC20Pausable",
    permit: "ERC20Permit",
    capped: "ERC20Capped",
    votes: "ERC20Votes",
  },
  ERC721: {
    enumerable: "ERC721Enumerable",
    uriStorage: "ERC721URIStorage",
    pausable: "ERC721Pausable",
    burnable: "ERC721Burnable",
    royalty: "ERC2981",
  },
  ERC1155: { pausable: "ERC1155Pausable", burnable: "ERC1155Burnable", supply: "ERC1155Supply", royalty: "ERC2981" },
};

/** The functions several bases define, and which bases define them: a contract inheriting two of them must override. */
const OVERRIDABLE: Record<TokenKind, Array<{ signature: string; definedBy: string[]; body: string }>> = {
  ERC20: [
    {
      signature: "function _update(address from, address to, uint256 value) internal",
      definedBy: ["ERC20", "ERC20Pausable", "ERC20Capped", "ERC20Votes"],
      body: "super._update(from, to, value);",
    },
    {
      signature: "function nonces(address owner) public view",
      definedBy: ["ERC20Permit", "Nonces"],
      body: "return super.nonces(owner);",
    },
    {
      signature: "function supportsInterface(bytes4 interfaceId) public view",
      definedBy: ["ERC1363", "AccessControl"],
      body: "return super.supportsInterface(interfaceId);",
    },
  ],
  ERC721: [
    {
      signature: "function _update(address to, uint256 tokenId, address auth) internal",
      definedBy: ["ERC721", "ERC721Enumerable", "ERC721Pausable", "ERC721Votes"],
      body: "return super._update(to, tokenId, auth);",
    },
    {
      signature: "function _increaseBalance(address account, uint128 value) internal",
      definedBy: ["ERC721", "ERC721Enumerable", "ERC721Votes"],
      body: "super._increaseBalance(account, value);",
    },
    {
      signature: "function tokenURI(uint256 tokenId) public view",
      definedBy: ["ERC721", "ERC721URIStorage"],
      body: "return super.tokenURI(tokenId);",
    },
    {
      signature: "function supportsInterface(bytes4 interfaceId) public view",
      definedBy: ["ERC721", "ERC721Enumerable", "ERC721URIStorage", "ERC2981", "AccessControl"],
      body: "return super.supportsInterface(interfaceId);",
    },
  ],
  ERC1155: [
    {
      signature: "function _update(address from, address to, uint256[] memory ids, uint256[] memory values) internal",
      definedBy: ["ERC1155", "ERC1155Pausable", "ERC1155Supply"],
      body: "super._update(from, to, ids, values);",
    },
    {
      signature: "function supportsInterface(bytes4 interfaceId) public view",
      definedBy: ["ERC1155", "ERC2981", "AccessControl"],
      body: "return super.supportsInterface(interfaceId);",
    },
  ],
};

const RETURNS: Record<string, string> = {
  "function _update(address to, uint256 tokenId, address auth) internal": " returns (address)",
  "function nonces(address owner) public view": " returns (uint256)",
  "function tokenURI(uint256 tokenId) public view": " returns (string memory)",
  "function supportsInterface(bytes4 interfaceId) public view": " returns (bool)",
};

interface Parts {
  bases: string[];
  /** Imported without being a direct base (named in an override list). */
  alsoImported: string[];
  constructorParameters: string[];
  baseConstructors: string[];
  constructorBody: string[];
  members: string[];
  functions: string[];
}

/** The airdrop functions' one check of their own: one value per recipient (OpenZeppelin's internal mints check the rest). */
const AIRDROP_ERROR = "error AirdropInvalidArrayLength(uint256 recipients, uint256 values);";

/** Reverts unless `array` has one entry per recipient in `to`. */
const sameLength = (array: string) => `if (${array}.length != to.length) revert AirdropInvalidArrayLength(to.length, ${array}.length);`;

/** An airdrop function: `body` runs once per recipient, with `i` its index, all in one transaction (all or nothing). */
function airdrop(notice: string, signature: string, minter: string, arrays: string[], body: string[]): string {
  const checks = arrays.map((array) => `\n        ${sameLength(array)}`).join("");
  const loop =
    body.length === 1
      ? `for (uint256 i = 0; i < to.length; ++i) ${body[0]}`
      : `for (uint256 i = 0; i < to.length; ++i) {\n${body.map((line) => `            ${line}`).join("\n")}\n        }`;
  return `/// @notice ${notice}\n    function ${signature} public ${minter} {${checks}\n        ${loop}\n    }`;
}

function restricted(variant: Variant, role: string): string {
  if (variant.access === "managed") return "restricted";
  return variant.access === "ownable" ? "onlyOwner" : `onlyRole(${role})`;
}

/**
 * The access base. "managed", as the Wizard's set-access-control.ts composes it: AccessManaged(initialAuthority), and
 * every restricted function asks that AccessManager (`restricted`); the contract defines no roles and no owner. The
 * constructor's `admin` parameter becomes the authority (the Wizard's name for it), in the same place.
 */
function accessParts(variant: Variant, parts: Parts, admin: string, roles: string[]): void {
  if (variant.access === "managed") {
    const at = parts.constructorParameters.indexOf(`address ${admin}`);
    parts.constructorParameters[at] = "address initialAuthority";
    parts.bases.push("AccessManaged");
    parts.baseConstructors.push("AccessManaged(initialAuthority)");
    return;
  }
  if (variant.access === "ownable") {
    parts.bases.push("Ownable");
    parts.baseConstructors.push(`Ownable(${admin})`);
    return;
  }
  parts.bases.push("AccessControl");
  // The Wizard's UUPS upgrades are UPGRADER_ROLE's (last of the roles), granted to the admin like the others.
  if (variant.upgradeable === "uups") roles = [...roles, "UPGRADER_ROLE"];
  for (const role of roles) parts.members.push(`bytes32 public constant ${role} = keccak256("${role}");`);
  parts.constructorBody.push(`_grantRole(DEFAULT_ADMIN_ROLE, ${admin});`, ...roles.map((role) => `_grantRole(${role}, ${admin});`));
}

function pauseFunctions(variant: Variant): string[] {
  return [
    `function pause() public ${restricted(variant, "PAUSER_ROLE")} {\n        _pause();\n    }`,
    `function unpause() public ${restricted(variant, "PAUSER_ROLE")} {\n        _unpause();\n    }`,
  ];
}

/** The Wizard's clock mode "timestamp" (ERC-6372): checkpoints keyed by block timestamps instead of block numbers. */
function timestampClock(): string[] {
  return [
    "function clock() public view override returns (uint48) {\n        return uint48(block.timestamp);\n    }",
    '// solhint-disable-next-line func-name-mixedcase\n    function CLOCK_MODE() public pure override returns (string memory) {\n        return "mode=timestamp";\n    }',
  ];
}

function erc20Parts(variant: Variant, parts: Parts): void {
  const has = (feature: string) => variant.features.includes(feature);
  parts.bases.push("ERC20");
  parts.baseConstructors.push("ERC20(name_, symbol_)");
  parts.constructorParameters.push("string memory name_", "string memory symbol_", "uint8 decimals_");
  if (has("capped")) {
    parts.constructorParameters.push("uint256 cap_");
    parts.baseConstructors.push("ERC20Capped(cap_)");
  }
  parts.constructorParameters.push("address initialHolder", "uint256 initialSupply", "address admin");
  for (const feature of ["burnable", "pausable", "capped"]) if (has(feature)) parts.bases.push(EXTENSION.ERC20[feature]!);
  const roles = [...(has("mintable") ? ["MINTER_ROLE"] : []), ...(has("pausable") ? ["PAUSER_ROLE"] : [])];
  accessParts(variant, parts, "admin", roles);
  // ERC-1363 (the Wizard's `callback`): transferAndCall, transferFromAndCall and approveAndCall, which call the
  // receiver's or spender's hook and revert unless it answers its selector (an address without code included).
  if (has("callback")) parts.bases.push("ERC1363");
  if (has("permit")) {
    parts.bases.push("ERC20Permit");
    parts.baseConstructors.push("ERC20Permit(name_)");
  }
  if (has("votes")) {
    // Votes signs delegations with EIP-712: ERC20Permit's domain when present, its own otherwise (as the Wizard does).
    if (!has("permit")) {
      parts.bases.push("EIP712");
      parts.baseConstructors.push('EIP712(name_, "1")');
    }
    parts.bases.push("ERC20Votes");
  }
  if (has("permit") && has("votes")) parts.alsoImported.push("Nonces");
  // ERC-3156 flash loans of the token itself, free of fees, as the Wizard composes it (no override of its fee).
  if (has("flashmint")) parts.bases.push("ERC20FlashMint");
  // Storage in an upgradeable token: an immutable would be set in the implementation's constructor, not the proxy's.
  parts.members.push(variant.upgradeable === undefined ? "uint8 private immutable _decimals;" : "uint8 private _decimals;");
  parts.constructorBody.unshift("_decimals = decimals_;");
  parts.constructorBody.push("_mint(initialHolder, initialSupply);");
  parts.functions.push("function decimals() public view override returns (uint8) {\n        return _decimals;\n    }");
  if (has("pausable")) parts.functions.push(...pauseFunctions(variant));
  if (has("timestamp")) parts.functions.push(...timestampClock());
  if (has("mintable")) {
    parts.functions.push(
      `function mint(address to, uint256 amount) public ${restricted(variant, "MINTER_ROLE")} {\n        _mint(to, amount);\n    }`,
      airdrop(
        "Mints amounts[i] to to[i] for every i, in one transaction.",
        "airdrop(address[] calldata to, uint256[] calldata amounts)",
        restricted(variant, "MINTER_ROLE"),
        ["amounts"],
        ["_mint(to[i], amounts[i]);"],
      ),
    );
    parts.members.push(AIRDROP_ERROR);
  }
}

function royaltyParts(variant: Variant, parts: Parts): void {
  if (!variant.features.includes("royalty")) return;
  parts.bases.push("ERC2981");
  parts.constructorParameters.push("address royaltyReceiver", "uint96 royaltyBasisPoints");
  parts.constructorBody.push("_setDefaultRoyalty(royaltyReceiver, royaltyBasisPoints);");
}

function erc721Parts(variant: Variant, parts: Parts): void {
  const has = (feature: string) => variant.features.includes(feature);
  const minter = restricted(variant, "MINTER_ROLE");
  parts.bases.push("ERC721");
  for (const feature of ["enumerable", "uriStorage", "pausable", "burnable"])
    if (has(feature)) parts.bases.push(EXTENSION.ERC721[feature]!);
  parts.baseConstructors.push("ERC721(name_, symbol_)");
  parts.constructorParameters.push("string memory name_", "string memory symbol_", "string memory baseURI_", "address admin");
  royaltyParts(variant, parts);
  accessParts(variant, parts, "admin", ["MINTER_ROLE", ...(has("pausable") ? ["PAUSER_ROLE"] : [])]);
  if (has("votes")) {
    // As the Wizard: ERC721Votes signs delegations with an EIP-712 domain of the collection's name, version "1".
    parts.bases.push("EIP712", "ERC721Votes");
    parts.baseConstructors.push('EIP712(name_, "1")');
  }
  parts.members.push("string private _base;", "uint256 private _lastTokenId;");
  parts.constructorBody.unshift("_base = baseURI_;");
  parts.functions.push(
    `/// @notice Mints the next free id (from 1, skipping ids minted with mintWithId).\n    function mint(address to) public ${minter} returns (uint256 tokenId) {\n        tokenId = _nextFreeId();\n        _safeMint(to, tokenId);\n    }`,
    `function mintWithId(address to, uint256 tokenId) public ${minter} {\n        _safeMint(to, tokenId);\n    }`,
    airdrop(
      "Mints the next free id to each of to, in one transaction.",
      "airdrop(address[] calldata to)",
      minter,
      [],
      ["_safeMint(to[i], _nextFreeId());"],
    ),
    airdrop(
      "Mints tokenIds[i] to to[i] for every i, in one transaction.",
      "airdropWithIds(address[] calldata to, uint256[] calldata tokenIds)",
      minter,
      ["tokenIds"],
      ["_safeMint(to[i], tokenIds[i]);"],
    ),
  );
  parts.members.push(AIRDROP_ERROR);
  if (has("uriStorage")) {
    parts.functions.push(
      `/// @notice Mints the next free id with a URI of its own (ERC721URIStorage: appended to the base URI when there is one).\n    function mint(address to, string calldata uri) public ${minter} returns (uint256 tokenId) {\n        tokenId = _nextFreeId();\n        _safeMint(to, tokenId);\n        _setTokenURI(tokenId, uri);\n    }`,
      `function mintWithId(address to, uint256 tokenId, string calldata uri) public ${minter} {\n        _safeMint(to, tokenId);\n        if (bytes(uri).length > 0) _setTokenURI(tokenId, uri);\n    }`,
      airdrop(
        "Mints the next free id to each of to, with uris[i] as its URI where not empty, in one transaction.",
        "airdrop(address[] calldata to, string[] calldata uris)",
        minter,
        ["uris"],
        [
          "uint256 tokenId = _nextFreeId();",
          "_safeMint(to[i], tokenId);",
          "if (bytes(uris[i]).length > 0) _setTokenURI(tokenId, uris[i]);",
        ],
      ),
      airdrop(
        "Mints tokenIds[i] to to[i], with uris[i] as its URI where not empty, for every i, in one transaction.",
        "airdropWithIds(address[] calldata to, uint256[] calldata tokenIds, string[] calldata uris)",
        minter,
        ["tokenIds", "uris"],
        ["_safeMint(to[i], tokenIds[i]);", "if (bytes(uris[i]).length > 0) _setTokenURI(tokenIds[i], uris[i]);"],
      ),
    );
  }
  if (has("pausable")) parts.functions.push(...pauseFunctions(variant));
  if (has("timestamp")) parts.functions.push(...timestampClock());
  parts.functions.push(
    "function _nextFreeId() private returns (uint256 tokenId) {\n        do {\n            tokenId = ++_lastTokenId;\n        } while (_ownerOf(tokenId) != address(0));\n    }",
    "function _baseURI() internal view override returns (string memory) {\n        return _base;\n    }",
  );
}

function erc1155Parts(variant: Variant, parts: Parts): void {
  const has = (feature: string) => variant.features.includes(feature);
  const minter = restricted(variant, "MINTER_ROLE");
  parts.bases.push("ERC1155");
  for (const feature of ["pausable", "burnable", "supply"]) if (has(feature)) parts.bases.push(EXTENSION.ERC1155[feature]!);
  parts.baseConstructors.push("ERC1155(uri_)");
  parts.alsoImported.push("ERC1155Utils");
  parts.constructorParameters.push("string memory name_", "string memory uri_", "address admin");
  royaltyParts(variant, parts);
  const uriSetter = has("updatableUri") ? ["URI_SETTER_ROLE"] : [];
  accessParts(variant, parts, "admin", [...uriSetter, "MINTER_ROLE", ...(has("pausable") ? ["PAUSER_ROLE"] : [])]);
  // The Wizard's updatableUri: the owner, or URI_SETTER_ROLE's holders (granted to the admin at launch like the other
  // roles; the Wizard leaves it to the admin to grant), replace every id's URI.
  if (has("updatableUri"))
    parts.functions.push(
      `function setURI(string memory newuri) public ${restricted(variant, "URI_SETTER_ROLE")} {\n        _setURI(newuri);\n    }`,
    );
  // ERC-1155 has no name; marketplaces and wallets read one where the collection offers it.
  parts.members.push("string public name;");
  parts.constructorBody.unshift("name = name_;");
  parts.functions.push(
    `function mint(address to, uint256 id, uint256 amount, bytes memory data) public ${minter} {\n        _mint(to, id, amount, data);\n    }`,
    // EIP-1155 asks a batch's receiver for onERC1155BatchReceived, whatever its length; OpenZeppelin 5's _mintBatch and
    // safeBatchTransferFrom ask a batch of one id for onERC1155Received (its _updateWithAcceptanceCheck sees only the
    // arrays), which a receiver implementing the batch hook alone refuses. These two ask for the batch hook.
    `function mintBatch(address to, uint256[] memory ids, uint256[] memory amounts, bytes memory data) public ${minter} {\n        if (to == address(0)) {\n            revert ERC1155InvalidReceiver(address(0));\n        }\n        _update(address(0), to, ids, amounts);\n        ERC1155Utils.checkOnERC1155BatchReceived(_msgSender(), address(0), to, ids, amounts, data);\n    }`,
    "/// @dev EIP-1155: a batch transfer calls onERC1155BatchReceived, a batch of one id included.\n    function safeBatchTransferFrom(address from, address to, uint256[] memory ids, uint256[] memory values, bytes memory data) public override {\n        address sender = _msgSender();\n        if (from != sender && !isApprovedForAll(from, sender)) {\n            revert ERC1155MissingApprovalForAll(sender, from);\n        }\n        if (to == address(0)) {\n            revert ERC1155InvalidReceiver(address(0));\n        }\n        if (from == address(0)) {\n            revert ERC1155InvalidSender(address(0));\n        }\n        _update(from, to, ids, values);\n        ERC1155Utils.checkOnERC1155BatchReceived(sender, from, to, ids, values, data);\n    }",
    airdrop(
      "Mints amounts[i] of id ids[i] to to[i] for every i, in one transaction.",
      "airdrop(address[] calldata to, uint256[] calldata ids, uint256[] calldata amounts, bytes calldata data)",
      minter,
      ["ids", "amounts"],
      ["_mint(to[i], ids[i], amounts[i], data);"],
    ),
  );
  parts.members.push(AIRDROP_ERROR);
  if (has("pausable")) parts.functions.push(...pauseFunctions(variant));
}

/** The overrides Solidity requires: every function that two or more of the contract's bases define. */
function overrides(variant: Variant, parts: Parts): string[] {
  const inherited = new Set([...parts.bases, ...parts.alsoImported]);
  const result: string[] = [];
  for (const { signature, definedBy, body } of OVERRIDABLE[variant.kind]) {
    const defined = definedBy.filter((base) => inherited.has(base));
    if (defined.length < 2) continue;
    const bases = variant.upgradeable === undefined ? defined : defined.map(upgradeableName);
    result.push(`${signature} override(${bases.join(", ")})${RETURNS[signature] ?? ""} {\n        ${body}\n    }`);
  }
  return result;
}

function describe(variant: Variant): string {
  const on = featureOrder(variant.kind).filter((feature) => variant.features.includes(feature));
  return `${on.length > 0 ? on.join(", ") : "no options"}; access: ${variant.access}${upgradeableNote(variant)}`;
}

/** The source of one variant's contract. */
export function variantSource(variant: Variant): string {
  const parts: Parts = {
    bases: [],
    alsoImported: [],
    constructorParameters: [],
    baseConstructors: [],
    constructorBody: [],
    members: [],
    functions: [],
  };
  if (variant.kind === "ERC20") erc20Parts(variant, parts);
  else if (variant.kind === "ERC721") erc721Parts(variant, parts);
  else erc1155Parts(variant, parts);
  const name = variantName(variant);
  if (variant.upgradeable !== undefined) return upgradeableSource(variant, name, parts);
  const imports = [...parts.bases, ...parts.alsoImported].map((base) => `import {${base}} from "${IMPORTS[base]}";`);
  const lines = [
    "// SPDX-License-Identifier: MIT",
    isPrecompiled(variant)
      ? "// Generated by scripts/token-variants.ts (npm run build:contracts): do not edit."
      : "// Generated by hardhat-token-service when first launched (src/chains/evm/variants/variant-source.ts).",
    "pragma solidity ^0.8.24;",
    "",
    ...imports,
    "",
    `/// @notice ${variant.kind} launched by hardhat-token-service (${describe(variant)}).`,
    `contract ${name} is ${parts.bases.join(", ")} {`,
    ...parts.members.map((member) => `    ${member}`),
    "",
    `    constructor(${parts.constructorParameters.join(", ")})`,
    `        ${parts.baseConstructors.join(" ")}`,
    "    {",
    ...parts.constructorBody.map((statement) => `        ${statement}`),
    "    }",
    ...[...parts.functions, ...overrides(variant, parts)].flatMap((fn) => ["", `    ${fn}`]),
    "}",
    "",
  ];
  return lines.join("\n");
}

/**
 * The source of an upgradeable variant (upgradeable-source.ts): the same parts, with the upgradeable bases, an
 * `initialize` in place of the constructor, and for UUPS the upgrade's guard.
 */
function upgradeableSource(variant: Variant, name: string, parts: Parts): string {
  const uups = variant.upgradeable === "uups";
  const bases = ["Initializable", ...parts.bases.map(upgradeableName), ...(uups ? ["UUPSUpgradeable"] : [])];
  const imports = [
    ...[...parts.bases, ...parts.alsoImported].map(
      (base) => `import {${upgradeableName(base)}} from "${upgradeableImport(base, IMPORTS[base]!)}";`,
    ),
    ...["Initializable", ...(uups ? ["UUPSUpgradeable"] : [])].map((base) => `import {${base}} from "${UPGRADEABLE_IMPORTS[base]}";`),
  ];
  const functions = [...parts.functions, ...(uups ? [authorizeUpgrade(restricted(variant, "UPGRADER_ROLE"))] : [])];
  const lines = [
    "// SPDX-License-Identifier: MIT",
    "// Generated by hardhat-token-service when first launched (src/chains/evm/variants/variant-source.ts).",
    "pragma solidity ^0.8.24;",
    "",
    ...imports,
    "",
    `/// @notice ${variant.kind} launched by hardhat-token-service (${describe(variant)}), behind a proxy.`,
    `contract ${name} is ${bases.join(", ")} {`,
    ...parts.members.map((member) => `    ${member}`),
    "",
    "    /// @custom:oz-upgrades-unsafe-allow constructor",
    "    constructor() {",
    "        _disableInitializers();",
    "    }",
    "",
    `    function initialize(${parts.constructorParameters.join(", ")}) public initializer {`,
    ...[...initializerCalls(parts.bases, parts.baseConstructors), ...parts.constructorBody].map((statement) => `        ${statement}`),
    "    }",
    ...[...functions, ...overrides(variant, parts)].flatMap((fn) => ["", `    ${fn}`]),
    "}",
    "",
  ];
  return lines.join("\n");
}

/** A variant's source unit name: token-variants/<kind>/<Name>.sol (relative to the repository's root for those committed). */
export function variantPath(variant: Variant): string {
  return `token-variants/${variant.kind.toLowerCase()}/${variantName(variant)}.sol`;
}
