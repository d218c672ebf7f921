//! A real `redis-server` on a free loopback port, for the shared-state tests. There is no
//! stand-in: without `redis-server` (`scripts/ensure-redis.sh` installs it) the tests fail.

use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Redis {
    child: Option<Child>,
    port: u16,
    dir: std::path::PathBuf,
    /// A TLS-only server: the directory of its `server.pem`, `server.key` and `ca.pem`.
    tls: Option<std::path::PathBuf>,
}

impl Redis {
    pub fn start() -> Redis {
        Redis::start_with(None)
    }

    /// A server that speaks TLS only, with the certificate and key `server.pem` and
    /// `server.key` of `certs` (clients are not asked for certificates).
    pub fn start_tls(certs: &std::path::Path) -> Redis {
        Redis::start_with(Some(certs.to_path_buf()))
    }

    fn start_with(tls: Option<std::path::PathBuf>) -> Redis {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let dir = std::env::temp_dir().join(format!("abws-redis-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut r = Redis {
            child: None,
            port,
            dir,
            tls,
        };
        r.spawn();
        r
    }

    fn spawn(&mut self) {
        let mut command = Command::new("redis-server");
        match &self.tls {
            None => command.args(["--port", &self.port.to_string()]),
            Some(certs) => command
                .args(["--port", "0", "--tls-port", &self.port.to_string()])
                .arg("--tls-cert-file")
                .arg(certs.join("server.pem"))
                .arg("--tls-key-file")
                .arg(certs.join("server.key"))
                .arg("--tls-ca-cert-file")
                .arg(certs.join("ca.pem"))
                .args(["--tls-auth-clients", "no"]),
        };
        let child = command
            .args(["--bind", "127.0.0.1", "--save", ""])
            .args(["--appendonly", "no", "--dir"])
            .arg(&self.dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect(
                "redis-server must be installed for the shared-state tests \
                 (scripts/ensure-redis.sh installs it; `make test` runs it)",
            );
        self.child = Some(child);
        let until = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(Instant::now() < until, "redis-server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    /// The port (the TLS port of a TLS server).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Runs `redis-cli` over TLS against a TLS server, trusting `ca`.
    pub fn tls_cli(&self, ca: &std::path::Path, args: &[&str]) -> String {
        let out = Command::new("redis-cli")
            .args(["--tls", "--cacert"])
            .arg(ca)
            .args(["-h", "localhost", "-p", &self.port.to_string()])
            .args(args)
            .output()
            .expect("redis-cli (installed with redis-server)");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Runs `redis-cli` against it and returns what it printed (trimmed).
    pub fn cli(&self, args: &[&str]) -> String {
        let out = Command::new("redis-cli")
            .args(["-p", &self.port.to_string()])
            .args(args)
            .output()
            .expect("redis-cli (installed with redis-server)");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Kills the server (its data is gone, as after a restart without persistence).
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Starts it again on the same port.
    pub fn restart(&mut self) {
        self.kill();
        self.spawn();
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
