#!/usr/bin/env bash
# with-rpc-server.sh SERVER COMMAND [ARGS...]: starts SERVER (support/rpc_server.c)
# on a free port of 127.0.0.1, waits until it listens, runs COMMAND ARGS...
# with LLAMA_SCATTER_TEST_RPC=127.0.0.1:PORT (support/model.c puts the model
# there), and stops the server. Exits with COMMAND's status.
set -euo pipefail
server=$1
shift
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$server" "127.0.0.1:$port" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true' EXIT
listening=false
for _ in $(seq 300); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    listening=true
    break
  fi
  kill -0 "$pid" 2>/dev/null || { echo "the RPC server exited before listening" >&2; exit 1; }
  sleep 0.1
done
$listening || { echo "the RPC server is not listening on 127.0.0.1:$port after 30 s" >&2; exit 1; }
echo "RPC server on 127.0.0.1:$port (pid $pid)"
LLAMA_SCATTER_TEST_RPC="127.0.0.1:$port" "$@"
