# Throwaway local S3 server (moto) for scripts and tests. Source this file, then:
#
#   s3_temp_start DIR   start moto_server on 127.0.0.1 on a free port with signature checks on,
#                       create an IAM user with an allow-all policy and an access key, and export
#                       TRANSCODE_TEST_S3_ENDPOINT, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
#                       S3_TEMP_DIR, S3_TEMP_PORT, S3_TEMP_PID
#   s3_temp_stop        stop it (safe to call twice or after a failed start, e.g. from an EXIT trap)
#
# moto accepts any credentials unless INITIAL_NO_AUTH_ACTION_COUNT is set: then only that many
# requests go through unchecked and every later one must carry a valid SigV4 signature of a key
# that exists in moto's IAM. With a count of 0 no key could ever be created, so the server starts
# with a count of 3, spent at once on CreateUser, PutUserPolicy and CreateAccessKey; the exported
# key is the one moto generated (AWS_SECRET_ACCESS_KEY is real for this server only). The server's
# log is DIR/moto.log. Needs the PyPI package moto[server]; it is installed with pip when
# moto_server is missing.
#
# Example:
#   source scripts/s3-temp.sh
#   s3_temp_start /tmp/s3t && echo "$TRANSCODE_TEST_S3_ENDPOINT"; s3_temp_stop

# Prints a free TCP port on 127.0.0.1 (the kernel's choice); the caller retries on a collision.
_s3_temp_free_port() {
  python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Creates the IAM user, policy and access key with the three unchecked requests and prints
# "ACCESS_KEY_ID SECRET". The requests carry a SigV4-shaped Authorization header only so that
# moto routes them to IAM; their signatures are not checked.
_s3_temp_create_key() {
  python3 - "$1" <<'PY'
import sys, urllib.parse, urllib.request, re, json
endpoint = sys.argv[1]
auth = ("AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/iam/aws4_request, "
        "SignedHeaders=host;x-amz-date, Signature=" + "0" * 64)
def call(params):
    body = urllib.parse.urlencode(dict(params, Version="2010-05-08")).encode()
    req = urllib.request.Request(endpoint + "/", data=body, method="POST", headers={
        "Content-Type": "application/x-www-form-urlencoded; charset=utf-8",
        "Authorization": auth, "X-Amz-Date": "20130524T000000Z"})
    # The server is on loopback: never go through a proxy from the environment.
    with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(req, timeout=30) as r:
        return r.read().decode()
policy = json.dumps({"Version": "2012-10-17",
                     "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]})
call({"Action": "CreateUser", "UserName": "transcode-test"})
call({"Action": "PutUserPolicy", "UserName": "transcode-test", "PolicyName": "all", "PolicyDocument": policy})
out = call({"Action": "CreateAccessKey", "UserName": "transcode-test"})
key = re.search(r"<AccessKeyId>([^<]+)</AccessKeyId>", out)
secret = re.search(r"<SecretAccessKey>([^<]+)</SecretAccessKey>", out)
if not key or not secret:
    sys.exit("s3-temp: CreateAccessKey returned no key: " + out[:300])
print(key.group(1), secret.group(1))
PY
}

s3_temp_start() {
  local dir=${1:?usage: s3_temp_start DIR}
  if [ -n "${S3_TEMP_PID:-}" ] && kill -0 "$S3_TEMP_PID" 2>/dev/null; then
    echo "s3-temp: a server is already running (pid $S3_TEMP_PID); call s3_temp_stop first" >&2
    return 1
  fi
  if ! command -v moto_server >/dev/null 2>&1; then
    echo "s3-temp: installing moto[server] with pip" >&2
    python3 -m pip install --quiet "moto[server]" >&2 || { echo "s3-temp: pip install moto[server] failed" >&2; return 1; }
    hash -r
    command -v moto_server >/dev/null 2>&1 || { echo "s3-temp: moto_server is not on PATH after the install" >&2; return 1; }
  fi
  mkdir -p "$dir" || return 1
  dir=$(cd "$dir" && pwd -P) || return 1
  local log=$dir/moto.log
  : >"$log" || return 1
  export S3_TEMP_DIR=$dir

  local attempt port pid i up
  for attempt in 1 2 3 4 5; do
    port=$(_s3_temp_free_port) || return 1
    echo "== s3-temp: starting attempt $attempt on 127.0.0.1:$port" >>"$log"
    INITIAL_NO_AUTH_ACTION_COUNT=3 moto_server -H 127.0.0.1 -p "$port" >>"$log" 2>&1 &
    pid=$!
    up=0
    for i in $(seq 1 120); do
      kill -0 "$pid" 2>/dev/null || break
      # /moto-api/ is not an AWS action, so polling it spends none of the unchecked requests.
      if python3 -c 'import sys, urllib.request
urllib.request.build_opener(urllib.request.ProxyHandler({})).open(sys.argv[1], timeout=1).read()' \
          "http://127.0.0.1:$port/moto-api/" 2>/dev/null; then
        up=1
        break
      fi
      sleep 0.25
    done
    if [ "$up" -eq 1 ]; then break; fi
    kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
    pid=
    # Another process took the port between the choice and the bind: try another one.
    grep -q -E 'Address already in use' "$log" || break
  done
  if [ -z "$pid" ]; then
    cat "$log" >&2
    echo "s3-temp: moto_server did not start" >&2
    return 1
  fi
  export S3_TEMP_PID=$pid S3_TEMP_PORT=$port

  local creds
  if ! creds=$(_s3_temp_create_key "http://127.0.0.1:$port"); then
    cat "$log" >&2
    echo "s3-temp: could not create the test access key" >&2
    s3_temp_stop
    return 1
  fi
  _S3_TEMP_ENDPOINT="http://127.0.0.1:$port"
  export TRANSCODE_TEST_S3_ENDPOINT=$_S3_TEMP_ENDPOINT
  export AWS_ACCESS_KEY_ID=${creds%% *} AWS_SECRET_ACCESS_KEY=${creds#* }
  unset AWS_SESSION_TOKEN
  echo "s3-temp: moto $(python3 -c 'import moto; print(moto.__version__)' 2>/dev/null) on 127.0.0.1:$port (signatures checked), log in $log"
}

s3_temp_stop() {
  local pid=${S3_TEMP_PID:-}
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    local i
    for i in $(seq 1 40); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.25
    done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  if [ -n "${_S3_TEMP_ENDPOINT:-}" ] && [ "${TRANSCODE_TEST_S3_ENDPOINT:-}" = "$_S3_TEMP_ENDPOINT" ]; then
    unset TRANSCODE_TEST_S3_ENDPOINT AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY
  fi
  unset S3_TEMP_PID S3_TEMP_PORT _S3_TEMP_ENDPOINT
  return 0
}
