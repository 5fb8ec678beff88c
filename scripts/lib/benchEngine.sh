# Sourced by the bench scripts that start an engine (benchWorkers.sh, benchLive.sh): a free port,
# and the stop of the engine whose pid is in ENGINE_PID (TERM, then up to 20 s for it to drain).
ENGINE_PID=
free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
stop_engine() {
  if [ -n "$ENGINE_PID" ] && kill -0 "$ENGINE_PID" 2>/dev/null; then
    kill -TERM "$ENGINE_PID"
    for _ in $(seq 1 100); do kill -0 "$ENGINE_PID" 2>/dev/null || break; sleep 0.2; done
  fi
}
trap stop_engine EXIT
