#!/usr/bin/env bash
# bootstrap-service-record.sh: records the progress of a bootstrap service as a JSON array in
# ${SERVICE_RECORDS_DIR}<service>.json, so whoever gathers the logs can see which stage failed, where
# and why, without reading the whole journal.
#
# Source it from a bash script. Sourcing records the service start and installs an EXIT trap
# (record_service_exit) that closes an open stage and records the service end; an ERR trap remembers
# the failing line. Failures inside functions reach the ERR trap only under `set -E`.
#
# Environment:
#   SERVICE_RECORDS_DIR  directory of the records (default /var/log/openshift/)
#   SERVICE_RECORD_NAME  the service name; default: the systemd unit running this process minus
#                        ".service", or the script's name (minus .sh) when not run by a service unit
#   PRE_COMMAND          set by an ExecStartPre script: its start/end are recorded as
#                        "pre-command start"/"pre-command end" with preCommand=$PRE_COMMAND
#   POST_COMMAND         the same for an ExecStartPost script ("post-command ...", postCommand)
#   INVOCATION_ID        set by systemd; failures then quote the last 3 journal lines of this run
#
# Entry fields: timestamp, preCommand, postCommand, stage, phase, result, errorLine, errorMessage;
# fields that would be empty are left out.
#
# Functions:
#   record_service_start / record_service_end RESULT
#   record_service_stage_start NAME      refuses to open a stage while another one is open
#   record_service_stage_end RESULT [MESSAGE]
#   record_service_stage_success / record_service_stage_failure [MESSAGE]
#   record_service_exit                  the EXIT trap

SERVICE_RECORDS_DIR=${SERVICE_RECORDS_DIR:-/var/log/openshift/}
SERVICE_RECORD_CURRENT_STAGE=
SERVICE_RECORD_ERROR_LINE=

# The systemd unit of this process names the record file; a shell run by hand belongs to a session
# scope or a user manager instead, so the script's own name is used then.
service_record_default_name() {
	local unit
	unit=$(ps -o unit= -p "$$" 2>/dev/null || true)
	unit=${unit//[[:space:]]/}
	case "$unit" in
	user@*) ;;
	?*.service)
		echo "${unit%.service}"
		return 0
		;;
	esac
	unit=$(basename "$0")
	echo "${unit%.sh}"
}
SERVICE_RECORD_NAME=${SERVICE_RECORD_NAME:-$(service_record_default_name)}

# service_record_add PHASE [STAGE] [RESULT] [ERROR_LINE] [ERROR_MESSAGE]: appends one entry.
# A record that cannot be written is reported but never stops the service it describes.
service_record_add() {
	local file tmp
	file="${SERVICE_RECORDS_DIR%/}/$SERVICE_RECORD_NAME.json"
	if ! mkdir -p "$(dirname "$file")" || ! tmp=$(mktemp "$file.XXXXXX"); then
		echo "bootstrap-service-record: cannot write $file" >&2
		return 0
	fi
	[ -s "$file" ] || echo '[]' >"$file"
	if jq --arg timestamp "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
		--arg preCommand "${PRE_COMMAND:-}" \
		--arg postCommand "${POST_COMMAND:-}" \
		--arg stage "${2:-}" \
		--arg phase "$1" \
		--arg result "${3:-}" \
		--arg errorLine "${4:-}" \
		--arg errorMessage "${5:-}" \
		'. + [{timestamp: $timestamp, preCommand: $preCommand, postCommand: $postCommand,
		       stage: $stage, phase: $phase, result: $result,
		       errorLine: $errorLine, errorMessage: $errorMessage}
		      | with_entries(select(.value != ""))]' \
		"$file" >"$tmp"; then
		mv "$tmp" "$file"
	else
		echo "bootstrap-service-record: cannot update $file" >&2
		rm -f "$tmp"
	fi
	return 0
}

# "service", "pre-command" or "post-command": what this process is, for the phase names.
service_record_kind() {
	if [ -n "${PRE_COMMAND:-}" ]; then
		echo pre-command
	elif [ -n "${POST_COMMAND:-}" ]; then
		echo post-command
	else
		echo service
	fi
}

# The text of a failure: the last journal lines of this unit's current run when running under
# systemd (that is where the failing tool wrote its complaint), else the exit status.
service_record_error_message() {
	local lines=
	if [ -n "${INVOCATION_ID:-}" ] && command -v journalctl >/dev/null 2>&1; then
		lines=$(journalctl "_SYSTEMD_INVOCATION_ID=$INVOCATION_ID" --lines=3 --output=cat --no-pager 2>/dev/null || true)
	fi
	echo "${lines:-exit status $1}"
}

record_service_start() {
	service_record_add "$(service_record_kind) start"
}

# record_service_end RESULT [ERROR_LINE] [ERROR_MESSAGE]
record_service_end() {
	service_record_add "$(service_record_kind) end" "" "$1" "${2:-}" "${3:-}"
}

record_service_stage_start() {
	if [ -n "$SERVICE_RECORD_CURRENT_STAGE" ]; then
		echo "record_service_stage_start: cannot start stage '$1' inside open stage '$SERVICE_RECORD_CURRENT_STAGE'" >&2
		return 1
	fi
	SERVICE_RECORD_CURRENT_STAGE=$1
	service_record_add "stage start" "$1"
}

# service_record_stage_close RESULT ERROR_LINE ERROR_MESSAGE
service_record_stage_close() {
	if [ -z "$SERVICE_RECORD_CURRENT_STAGE" ]; then
		echo "bootstrap-service-record: no stage is open to end with $1" >&2
		return 1
	fi
	service_record_add "stage end" "$SERVICE_RECORD_CURRENT_STAGE" "$1" "$2" "$3"
	SERVICE_RECORD_CURRENT_STAGE=
}

# record_service_stage_end RESULT [MESSAGE]: a failure records the line that called us.
record_service_stage_end() {
	if [ "$1" = failure ]; then
		service_record_stage_close failure "$(caller 0)" "${2:-$(service_record_error_message 1)}"
	else
		service_record_stage_close "$1" "" ""
	fi
}

record_service_stage_success() {
	service_record_stage_close success "" ""
}

# record_service_stage_failure [MESSAGE]
record_service_stage_failure() {
	service_record_stage_close failure "$(caller 0)" "${1:-$(service_record_error_message 1)}"
}

# ERR trap: remember where the command that is about to end the script failed ("LINE FUNCTION FILE").
service_record_on_error() {
	SERVICE_RECORD_ERROR_LINE=$(caller 0)
}

record_service_exit() {
	local status=$? result=success line='' message=''
	# Nothing below may fail the trap or re-enter the ERR trap.
	trap - ERR
	set +e
	if [ "$status" -ne 0 ]; then
		result=failure
		line=$SERVICE_RECORD_ERROR_LINE
		message=$(service_record_error_message "$status")
	fi
	if [ -n "$SERVICE_RECORD_CURRENT_STAGE" ]; then
		service_record_stage_close "$result" "$line" "$message"
	fi
	record_service_end "$result" "$line" "$message"
	exit "$status"
}

trap service_record_on_error ERR
trap record_service_exit EXIT
record_service_start
