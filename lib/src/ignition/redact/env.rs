//! Secrets in environment assignments, as environment files, shell scripts and systemd's
//! `Environment=` write them: `REGISTRY_PASSWORD=...`, `export API_TOKEN=...`,
//! `Environment="AWS_SECRET_ACCESS_KEY=..."`, and INI or TOML keys (`password = x`). The value of a variable whose name says it holds a
//! secret is hidden; a value that only refers to one (`$VAR`, `${VAR:-x}`, a `/path`) is shown.

use super::{is_secret_scalar_key as is_secret_name, Redact};

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// `line` with the value of each secret variable's assignment hidden. An assignment that starts
/// the line (after `export `) runs to its end, as an environment file reads it; one that a quote
/// opens runs to that quote; any other to the next blank. Linear in the line: each byte is
/// looked at a bounded number of times.
pub(super) fn hide_assignments(mode: Redact, line: &str) -> String {
    let bytes = line.as_bytes();
    let body_start = {
        let indented = line.len() - line.trim_start().len();
        let rest = &line[indented..];
        indented + rest.strip_prefix("export ").map_or(0, |_| "export ".len())
    };
    let mut out = String::with_capacity(line.len());
    let mut copied = 0;
    let mut at = 0;
    while let Some(offset) = line[at..].find('=') {
        let equals = at + offset;
        at = equals + 1;
        // INI and TOML put blanks around a key's `=` (`password = x`): taken only for a key that
        // starts the line, so `a == b` in a script is no assignment.
        let name_end = line[copied..equals].trim_end_matches([' ', '\t']).len() + copied;
        let mut start = name_end;
        while start > copied && is_name_byte(bytes[start - 1]) {
            start -= 1;
        }
        let spaced = name_end != equals
            || bytes
                .get(equals + 1)
                .is_some_and(|b| matches!(b, b' ' | b'\t'));
        if spaced && start != body_start {
            continue;
        }
        let name = &line[start..name_end];
        let boundary = start.checked_sub(1).map(|i| bytes[i]);
        let opens_with_quote = matches!(boundary, Some(b'"' | b'\''));
        let at_boundary = match boundary {
            None => true,
            Some(b) => b.is_ascii_whitespace() || b == b'=' || opens_with_quote,
        };
        if name.is_empty() || name.as_bytes()[0].is_ascii_digit() || !at_boundary {
            continue;
        }
        if !is_secret_name(name) {
            continue;
        }
        let value_start = if spaced {
            equals
                + 1
                + (line[equals + 1..].len()
                    - line[equals + 1..].trim_start_matches([' ', '\t']).len())
        } else {
            equals + 1
        };
        let rest = &line[value_start..];
        let body = rest.trim_end_matches(['\n', '\r']);
        let len = if opens_with_quote {
            let quote = boundary.map(char::from).unwrap_or('"');
            body.find(quote).unwrap_or(body.len())
        } else if start == body_start {
            body.trim_end().len()
        } else {
            body.find(|c: char| c.is_whitespace() || c == '"' || c == '\'')
                .unwrap_or(body.len())
        };
        let value = &rest[..len];
        let (inner, quoted) = match value.as_bytes().first() {
            Some(q @ (b'"' | b'\'')) if len >= 2 && value.as_bytes()[len - 1] == *q => {
                (&value[1..len - 1], true)
            }
            _ => (value, false),
        };
        if inner.is_empty() || inner.starts_with('$') || inner.starts_with('/') {
            at = value_start + len;
            continue;
        }
        out.push_str(&line[copied..value_start]);
        let shown = mode.shown("redacted", inner.as_bytes());
        if quoted {
            let q = &value[..1];
            out.push_str(q);
            out.push_str(&shown);
            out.push_str(q);
        } else {
            out.push_str(&shown);
        }
        copied = value_start + len;
        at = copied;
    }
    out.push_str(&line[copied..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hidden(line: &str) -> String {
        hide_assignments(Redact::Marker, line)
    }

    #[test]
    fn a_secret_variables_value_is_hidden_however_it_is_assigned() {
        for (line, shown) in [
            (
                "REGISTRY_PASSWORD=hunter2\n",
                "REGISTRY_PASSWORD=<redacted>\n",
            ),
            (
                "export API_TOKEN=abc def\n",
                "export API_TOKEN=<redacted>\n",
            ),
            ("  db_passwd='s3 cret'", "  db_passwd='<redacted>'"),
            (
                "Environment=\"AWS_SECRET_ACCESS_KEY=ab cd\" \"REGION=eu\"",
                "Environment=\"AWS_SECRET_ACCESS_KEY=<redacted>\" \"REGION=eu\"",
            ),
            (
                "Environment=GITHUB_TOKEN=ghp_x LEVEL=2",
                "Environment=GITHUB_TOKEN=<redacted> LEVEL=2",
            ),
            (
                "curl -u x CLIENT_SECRET=zz -v",
                "curl -u x CLIENT_SECRET=<redacted> -v",
            ),
            ("password = PwOne111\n", "password = <redacted>\n"),
            (
                "  db_password\t=  \"Pw One\"",
                "  db_password\t=  \"<redacted>\"",
            ),
            ("api_token =x", "api_token =<redacted>"),
            ("DB_PASS=hunter2\n", "DB_PASS=<redacted>\n"),
            (
                "export SMTP_PASS=\"a b\"",
                "export SMTP_PASS=\"<redacted>\"",
            ),
            ("PASS=x", "PASS=<redacted>"),
            ("db_pass = x", "db_pass = <redacted>"),
            (
                "run DB_PASSWD=x APP_SECRET=y GH_TOKEN=z",
                "run DB_PASSWD=<redacted> APP_SECRET=<redacted> GH_TOKEN=<redacted>",
            ),
        ] {
            assert_eq!(hidden(line), shown, "{line}");
        }
    }

    #[test]
    fn references_and_other_variables_are_shown() {
        for line in [
            "PULL_SECRET=${BOOTKUBE_PULL_SECRET:-/root/.docker/config.json}\n",
            "TOKEN_FILE=/var/run/token\n",
            "API_TOKEN=$(cat /run/token)\n",
            "--pull-secret=/assets/pull-secret.yaml",
            "--token=abc",
            "KUBECONFIG=/etc/kubernetes/kubeconfig LEVEL=2\n",
            "PASSWORD=\n",
            "a == b",
            "password = ",
            "run x password = y",
            "x=1 2TOKEN=3",
            "BYPASS=1\n",
            "COMPASS=north",
            "NO_PROXY_BYPASS=yes",
        ] {
            assert_eq!(hidden(line), line);
        }
    }

    #[test]
    fn a_long_line_of_assignments_is_read_once() {
        let line = format!("run {}", "A_TOKEN=x ".repeat(50_000));
        let shown = hidden(&line);
        assert_eq!(shown.matches("<redacted>").count(), 50_000);
        let equals = "=".repeat(200_000);
        assert_eq!(hidden(&equals), equals);
    }
}
