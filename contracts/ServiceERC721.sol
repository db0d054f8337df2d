// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC721Enumerable} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721Enumerable.sol";
import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";

/// @notice Non-fungible token launched by hardhat-token-service.
/// tokenURI is `baseURI + id` unless the token was minted with a URI of its own.
/// `mint` assigns the next free id, starting at 1; `mintWithId` lets the minter choose one.
contract ServiceERC721 is ERC721Enumerable, AccessControl {
    bytes32 public constant MINTER_ROLE = keccak256("MINTER_ROLE");

    string private _base;
    uint256 private _lastTokenId;
    mapping(uint256 tokenId => string) private _ownURIs;

    constructor(string memory name_, string memory symbol_, string memory baseURI_, address minter)
        ERC721(name_, symbol_)
    {
        _base = baseURI_;
        _grantRole(DEFAULT_ADMIN_ROLE, minter);
        _grantRole(MINTER_ROLE, minter);
    }

    function mint(address to) external onlyRole(MINTER_ROLE) returns (uint256 tokenId) {
        tokenId = _nextFreeId();
        _safeMint(to, tokenId);
    }

    function mint(address to, string calldata uri) external onlyRole(MINTER_ROLE) returns (uint256 tokenId) {
        tokenId = _nextFreeId();
        _mintWithURI(to, tokenId, uri);
    }

    function mintWithId(address to, uint256 tokenId, string calldata uri) external onlyRole(MINTER_ROLE) {
        _mintWithURI(to, tokenId, uri);
    }

    function tokenURI(uint256 tokenId) public view override returns (string memory) {
        string memory own = _ownURIs[tokenId];
        if (bytes(own).length > 0) {
            _requireOwned(tokenId);
            return own;
        }
        return super.tokenURI(tokenId);
    }

    function _nextFreeId() private returns (uint256 tokenId) {
        do {
            tokenId = ++_lastTokenId;
        } while (_ownerOf(tokenId) != address(0));
    }

    function _mintWithURI(address to, uint256 tokenId, string calldata uri) private {
        if (bytes(uri).length > 0) _ownURIs[tokenId] = uri;
        _safeMint(to, tokenId);
    }

    function _baseURI() internal view override returns (string memory) {
        return _base;
    }

    function supportsInterface(bytes4 interfaceId)
        public
        view
        override(ERC721Enumerable, AccessControl)
        returns (bool)
    {
        return super.supportsInterface(interfaceId);
    }
}
