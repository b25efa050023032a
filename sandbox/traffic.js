'use strict';

/**
 * How clients use their connections to the API, for GET /_sandbox/traffic: how many connections carried API
 * requests, how many of those resumed a TLS session instead of a full handshake, and the most API requests
 * the sandbox had in flight at once. Counts start again on DELETE /_sandbox/traffic and on reset.
 */
class TrafficCounter {
	constructor() {
		this.inFlight = 0;
		/** @type {WeakSet<object>} sockets that carried an API request since the last clear */
		this.seen = new WeakSet();
		this.requests = 0;
		this.connections = 0;
		this.resumedSessions = 0;
		this.maxInFlight = 0;
	}

	clear() {
		this.seen = new WeakSet();
		this.requests = 0;
		this.connections = 0;
		this.resumedSessions = 0;
		this.maxInFlight = this.inFlight;
	}

	/**
	 * An API request arrives on `socket` (a TLS socket when the sandbox serves HTTPS).
	 * @param {import('node:net').Socket} socket
	 */
	begin(socket) {
		this.requests++;
		this.inFlight++;
		this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
		if (this.seen.has(socket)) return;
		this.seen.add(socket);
		this.connections++;
		const tlsSocket = /** @type {{ isSessionReused?: () => boolean }} */ (socket);
		if (tlsSocket.isSessionReused?.()) this.resumedSessions++;
	}

	/** The API request has been answered (or its socket reset). */
	end() {
		this.inFlight--;
	}

	describe() {
		return {
			api_requests: this.requests,
			connections: this.connections,
			tls_sessions_resumed: this.resumedSessions,
			max_in_flight: this.maxInFlight,
		};
	}
}

module.exports = { TrafficCounter };
