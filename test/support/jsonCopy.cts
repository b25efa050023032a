/** A JSON copy, as a database or a cache holds data: both triggers' harnesses save static data this way. */
export function jsonCopy<T>(value: T): T {
	return JSON.parse(JSON.stringify(value ?? {})) as T;
}
