'use strict';

// A self-signed TLS certificate made at start with Node's crypto alone: an ECDSA P-256 key and an X.509 v3
// certificate written in DER by hand (the few ASN.1 types a certificate needs). It names the hosts the sandbox
// answers on, so a client that trusts it (Node: NODE_EXTRA_CA_CERTS, or the `ca` option) checks it like a
// real service's. Nothing is committed and nothing outlives the process.

const crypto = require('node:crypto');
const net = require('node:net');

const OID = {
	ecdsaWithSha256: '1.2.840.10045.4.3.2',
	commonName: '2.5.4.3',
	basicConstraints: '2.5.29.19',
	keyUsage: '2.5.29.15',
	extendedKeyUsage: '2.5.29.37',
	serverAuth: '1.3.6.1.5.5.7.3.1',
	subjectAltName: '2.5.29.17',
};

/**
 * One DER element: tag, length, content.
 * @param {number} tag
 * @param {Buffer} content
 * @returns {Buffer}
 */
function element(tag, content) {
	const { length } = content;
	if (length < 0x80) return Buffer.concat([Buffer.from([tag, length]), content]);
	const bytes = [];
	for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
	return Buffer.concat([Buffer.from([tag, 0x80 | bytes.length, ...bytes]), content]);
}

/** @param {Buffer[]} parts */
const sequence = (...parts) => element(0x30, Buffer.concat(parts));
/** @param {Buffer[]} parts */
const set = (...parts) => element(0x31, Buffer.concat(parts));
/** @param {number} n @param {Buffer} content */
const explicit = (n, content) => element(0xa0 + n, content);
/** @param {Buffer} bytes */
const octetString = (bytes) => element(0x04, bytes);
/** @param {Buffer} bytes @param {number} [unusedBits] */
const bitString = (bytes, unusedBits = 0) =>
	element(0x03, Buffer.concat([Buffer.from([unusedBits]), bytes]));
const TRUE = element(0x01, Buffer.from([0xff]));

/**
 * A positive INTEGER from big-endian bytes, in DER's one encoding: no leading zero bytes (OpenSSL refuses
 * them as "illegal padding"), except one that keeps the high bit from reading as a sign.
 * @param {Buffer} bytes
 */
function integer(bytes) {
	let start = 0;
	while (start < bytes.length - 1 && bytes[start] === 0) start++;
	const minimal = bytes.subarray(start);
	return element(0x02, minimal[0] & 0x80 ? Buffer.concat([Buffer.from([0]), minimal]) : minimal);
}

/** @param {string} dotted e.g. "2.5.4.3" */
function objectId(dotted) {
	const [first, second, ...rest] = dotted.split('.').map(Number);
	const bytes = [first * 40 + second];
	for (const arc of rest) {
		const base128 = [arc & 0x7f];
		for (let value = arc >>> 7; value > 0; value >>>= 7) base128.unshift((value & 0x7f) | 0x80);
		bytes.push(...base128);
	}
	return element(0x06, Buffer.from(bytes));
}

/** UTCTime, e.g. 260101120000Z (valid for years before 2050, as DER requires for UTCTime). */
function utcTime(/** @type {Date} */ date) {
	const iso = date.toISOString();
	const text = `${iso.slice(2, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
	return element(0x17, Buffer.from(text, 'ascii'));
}

/**
 * @param {string} oid
 * @param {boolean} critical
 * @param {Buffer} value the extension's DER value
 */
function extension(oid, critical, value) {
	return sequence(objectId(oid), ...(critical ? [TRUE] : []), octetString(value));
}

/**
 * The 16 bytes of an IPv6 address in text form (a "::" stands for the missing zero groups).
 * @param {string} address
 */
function ipv6Bytes(address) {
	const [head, tail] = address.split('::');
	const groups = (/** @type {string} */ text) => (text ? text.split(':') : []);
	const missing = 8 - groups(head).length - groups(tail).length;
	const all = [
		...groups(head),
		...Array(tail === undefined ? 0 : missing).fill('0'),
		...groups(tail),
	];
	return Buffer.from(
		all.flatMap((group) => [parseInt(group, 16) >> 8, parseInt(group, 16) & 0xff]),
	);
}

/**
 * A subjectAltName entry: iPAddress for an IP address, dNSName for a name.
 * @param {string} host
 */
function altName(host) {
	if (net.isIPv4(host)) return element(0x87, Buffer.from(host.split('.').map(Number)));
	if (net.isIPv6(host)) return element(0x87, ipv6Bytes(host));
	return element(0x82, Buffer.from(host, 'ascii'));
}

/**
 * A self-signed certificate for `hosts` (names and IP addresses), valid from a day ago for a year.
 * @param {string[]} hosts
 * @returns {{ key: string, cert: string }} PEM texts
 */
function selfSignedCertificate(hosts) {
	const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
	const name = sequence(
		set(sequence(objectId(OID.commonName), element(0x0c, Buffer.from('Voice Agent sandbox')))),
	);
	const now = Date.now();
	const day = 24 * 60 * 60 * 1000;
	const serial = crypto.randomBytes(16);
	serial[0] &= 0x7f;
	const signatureAlgorithm = sequence(objectId(OID.ecdsaWithSha256));
	const extensions = sequence(
		// A CA for itself, so it can be the trust anchor a client is given, and a server certificate.
		extension(OID.basicConstraints, true, sequence(TRUE)),
		// digitalSignature (bit 0) and keyCertSign (bit 5): 1000 0100, two unused bits.
		extension(OID.keyUsage, true, bitString(Buffer.from([0x84]), 2)),
		extension(OID.extendedKeyUsage, false, sequence(objectId(OID.serverAuth))),
		extension(OID.subjectAltName, false, sequence(...[...new Set(hosts)].map(altName))),
	);
	const toBeSigned = sequence(
		explicit(0, integer(Buffer.from([2]))),
		integer(serial),
		signatureAlgorithm,
		name,
		sequence(utcTime(new Date(now - day)), utcTime(new Date(now + 365 * day))),
		name,
		publicKey.export({ type: 'spki', format: 'der' }),
		explicit(3, extensions),
	);
	const signature = crypto.sign('sha256', toBeSigned, privateKey);
	const der = sequence(toBeSigned, signatureAlgorithm, bitString(signature));
	const base64 = der.toString('base64').replace(/.{64}/g, '$&\n');
	return {
		key: String(privateKey.export({ type: 'pkcs8', format: 'pem' })),
		cert: `-----BEGIN CERTIFICATE-----\n${base64.trimEnd()}\n-----END CERTIFICATE-----\n`,
	};
}

module.exports = { selfSignedCertificate };
