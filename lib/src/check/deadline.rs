//! One deadline per exchange: the connection, the TLS handshake, the request and the whole
//! response share it, so a server that answers slowly, a byte at a time or without end is cut
//! off when the exchange's time is up, however each read goes.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// When an exchange must be over, and how long it was given.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Deadline {
    at: Instant,
    allowed: Duration,
}

impl Deadline {
    /// A deadline `allowed` from now.
    pub(crate) fn after(allowed: Duration) -> Deadline {
        Deadline {
            at: Instant::now() + allowed,
            allowed,
        }
    }

    /// How long the exchange was given.
    pub(crate) fn allowed(&self) -> Duration {
        self.allowed
    }

    /// The time left, or a timed-out error once there is none.
    pub(crate) fn left(&self) -> io::Result<Duration> {
        match self.at.checked_duration_since(Instant::now()) {
            Some(left) if !left.is_zero() => Ok(left),
            _ => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "the exchange did not finish within {} s",
                    self.allowed.as_secs().max(1)
                ),
            )),
        }
    }
}

/// A connected socket whose every read and write waits at most until the deadline.
#[derive(Debug)]
pub(crate) struct Bounded {
    socket: TcpStream,
    deadline: Deadline,
}

impl Bounded {
    /// Connects to `address` within the deadline.
    pub(crate) fn connect(
        address: std::net::SocketAddr,
        deadline: Deadline,
    ) -> io::Result<Bounded> {
        let socket = TcpStream::connect_timeout(&address, deadline.left()?)?;
        Ok(Bounded { socket, deadline })
    }

    /// The deadline its exchange keeps.
    pub(crate) fn deadline(&self) -> Deadline {
        self.deadline
    }
}

impl Read for Bounded {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        self.socket.set_read_timeout(Some(self.deadline.left()?))?;
        self.socket.read(buffer)
    }
}

impl Write for Bounded {
    fn write(&mut self, buffer: &[u8]) -> io::Result<usize> {
        self.socket.set_write_timeout(Some(self.deadline.left()?))?;
        self.socket.write(buffer)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.socket.flush()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_passed_deadline_refuses_every_read() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let mut socket =
            Bounded::connect(address, Deadline::after(Duration::from_millis(300))).unwrap();
        let _accepted = listener.accept().unwrap();
        let started = Instant::now();
        let error = socket.read(&mut [0u8; 16]).unwrap_err();
        assert!(
            matches!(
                error.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ),
            "{error}"
        );
        assert!(started.elapsed() < Duration::from_secs(2));
        let error = socket.read(&mut [0u8; 16]).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut, "{error}");
        assert!(error.to_string().contains("within 1 s"), "{error}");
    }
}
