import benchMcp from "../bench/mcp.js";
await benchMcp();
