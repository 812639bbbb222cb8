//! The `select` module's constants, as CPython's on Linux: the native module
//! (`select_module.rs`, whose tests check them against the system's) and the page's
//! (`page_os.rs`, which has no system to ask) both list these.

/// `(name, value)`, sorted by name.
pub const CONSTANTS: &[(&str, i64)] = &[
    ("EPOLLERR", 8),
    ("EPOLLET", 2147483648),
    ("EPOLLEXCLUSIVE", 268435456),
    ("EPOLLHUP", 16),
    ("EPOLLIN", 1),
    ("EPOLLMSG", 1024),
    ("EPOLLONESHOT", 1073741824),
    ("EPOLLOUT", 4),
    ("EPOLLPRI", 2),
    ("EPOLLRDBAND", 128),
    ("EPOLLRDHUP", 8192),
    ("EPOLLRDNORM", 64),
    ("EPOLLWRBAND", 512),
    ("EPOLLWRNORM", 256),
    ("EPOLL_CLOEXEC", 524288),
    ("PIPE_BUF", 4096),
    ("POLLERR", 8),
    ("POLLHUP", 16),
    ("POLLIN", 1),
    ("POLLMSG", 1024),
    ("POLLNVAL", 32),
    ("POLLOUT", 4),
    ("POLLPRI", 2),
    ("POLLRDBAND", 128),
    ("POLLRDHUP", 8192),
    ("POLLRDNORM", 64),
    ("POLLWRBAND", 512),
    ("POLLWRNORM", 256),
];
