// The official TypeScript MCP SDK's client against the agent's /mcp
// endpoint (tests/cli/mcp.sh): connect (initialize, initialized, the
// optional GET stream), list the tools, call two, end the session.
// Usage: node mcp_sdk_client.mjs NODE_MODULES AIO_URL TOKEN
const [, , nm, url, token] = process.argv;
const { Client } = await import(`${nm}/@modelcontextprotocol/sdk/dist/esm/client/index.js`);
const { StreamableHTTPClientTransport } = await import(`${nm}/@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js`);

const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
	requestInit: { headers: { 'X-EXECD-ACCESS-TOKEN': token } },
});
const client = new Client({ name: 'allox-test', version: '1' });
await client.connect(transport);
const session = transport.sessionId;
const { tools } = await client.listTools();
const echo = await client.callTool({ name: 'everything_echo', arguments: { message: 'from the SDK' } });
const bash = await client.callTool({ name: 'sandbox_execute_bash', arguments: { cmd: 'echo sdk bash' } });
let unknown;
try {
	await client.callTool({ name: 'nosuch_tool', arguments: {} });
	unknown = 'no error';
} catch (e) {
	unknown = e.code;
}
await transport.terminateSession();
await client.close();
console.log(JSON.stringify({
	session,
	server: client.getServerVersion(),
	tools: tools.map((t) => t.name),
	echo: echo.content,
	bash: bash.content,
	unknown,
}));
