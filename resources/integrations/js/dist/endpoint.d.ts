/** What endpoint.json holds (PROTOCOL.md, "Connecting"). */
export interface Endpoint {
    url: string;
    agent_token: string;
    pid?: number;
    protocol?: number;
}
/**
 * The data directory: `dataDir` if given, else `$HOLDPOINT_DATA_DIR`, else
 * `$XDG_DATA_HOME/holdpoint`, else `~/.local/share/holdpoint`.
 */
export declare function resolveDataDir(dataDir?: string): string;
/** Reads and checks endpoint.json; throws ConsoleUnavailableError with what to do when it cannot. */
export declare function findEndpoint(dataDir?: string): Endpoint;
