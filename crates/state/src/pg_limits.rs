//! Limits that turn a PostgreSQL connection that hangs into one that fails: a crawler node
//! must notice a dead network or server within seconds, not wait on a socket for ever while
//! its leases run out. Applied by [`PgStateStore::connect`](super::PgStateStore::connect) to
//! every connection; a setting the connection string already gives is left as given.

use std::time::Duration;

/// Giving up on a server that does not answer the connection attempt.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Data sent but unacknowledged this long: the network or the server's host is gone.
const TCP_USER_TIMEOUT: Duration = Duration::from_secs(20);
/// Idle time before the first keepalive probe, and between probes.
const KEEPALIVE_IDLE: Duration = Duration::from_secs(10);
const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(5);
const KEEPALIVE_RETRIES: u32 = 3;
/// Server-side limits on one statement and on a transaction left open: a node's queries
/// take milliseconds, and a transaction that holds a lease row's lock this long belongs to
/// a node that stopped (its fenced writes are rolled back, the lease row is free again).
const SERVER_SETTINGS: [(&str, &str); 2] = [
    ("statement_timeout", "60s"),
    ("idle_in_transaction_session_timeout", "30s"),
];

/// Sets the limits on `config`, keeping those the connection string set.
pub(super) fn bound_waits(config: &mut postgres::Config) {
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    if config.get_tcp_user_timeout().is_none() {
        config.tcp_user_timeout(TCP_USER_TIMEOUT);
    }
    config
        .keepalives(true)
        .keepalives_idle(KEEPALIVE_IDLE)
        .keepalives_interval(KEEPALIVE_INTERVAL)
        .keepalives_retries(KEEPALIVE_RETRIES);
    if config.get_application_name().is_none() {
        config.application_name("ldwarc");
    }
    let given = config.get_options().unwrap_or("").to_string();
    let mut options = given.clone();
    for (name, value) in SERVER_SETTINGS {
        if !given.contains(name) {
            if !options.is_empty() {
                options.push(' ');
            }
            options.push_str(&format!("-c {name}={value}"));
        }
    }
    config.options(&options);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    #[test]
    fn every_connection_gets_timeouts_but_given_ones_stay() {
        let mut config = postgres::Config::from_str("postgres://u@127.0.0.1/db").unwrap();
        bound_waits(&mut config);
        assert_eq!(config.get_tcp_user_timeout(), Some(&TCP_USER_TIMEOUT));
        assert_eq!(config.get_connect_timeout(), Some(&CONNECT_TIMEOUT));
        assert!(config.get_keepalives());
        assert_eq!(
            config.get_options(),
            Some("-c statement_timeout=60s -c idle_in_transaction_session_timeout=30s")
        );

        let mut config = postgres::Config::from_str(
            "host=/run/pg user=u connect_timeout=3 application_name=n2 \
             options='-c statement_timeout=5s'",
        )
        .unwrap();
        bound_waits(&mut config);
        assert_eq!(config.get_connect_timeout(), Some(&Duration::from_secs(3)));
        assert_eq!(config.get_application_name(), Some("n2"));
        assert_eq!(
            config.get_options(),
            Some("-c statement_timeout=5s -c idle_in_transaction_session_timeout=30s")
        );
    }
}
