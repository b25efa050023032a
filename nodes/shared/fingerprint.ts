/** FNV-1a, 64 bits (the offset basis and prime of its definition). */
const OFFSET_BASIS = 0xcbf29ce484222325n;
const PRIME = 0x100000001b3n;
const BITS_64 = (1n << 64n) - 1n;

/**
 * A short, stable fingerprint of a text (FNV-1a over its UTF-16 code units, 64 bits as 16 hex digits):
 * enough to tell accounts apart in this process's memory without keeping their API key. Not a
 * cryptographic hash, and never meant to leave the process: it only names whose number or budget an entry is.
 */
export function fingerprint(text: string): string {
	let hash = OFFSET_BASIS;
	for (let index = 0; index < text.length; index++) {
		hash = ((hash ^ BigInt(text.charCodeAt(index))) * PRIME) & BITS_64;
	}
	return hash.toString(16).padStart(16, '0');
}
