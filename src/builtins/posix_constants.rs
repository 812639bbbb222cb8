//! The numbers of `termios`, `fcntl` and `resource`, as CPython 3.13 defines them on Linux
//! (x86-64), in the order its modules add them: natively and in a page alike (`page_os.rs`
//! gives a page the names with every call refused), so a program reads the same numbers
//! either way; and `termios.error`, which both make. Generated from CPython's modules and checked against the C headers; a unit
//! test checks the ones the `libc` crate has against it.

use crate::vm::Vm;
use crate::vm::object::Layout;
use crate::vm::types::make_type;
use crate::vm::value::Value;

/// `termios.error`, a plain Exception subclass, in both builds.
pub fn termios_error(vm: &mut Vm) -> Value {
    let error = make_type(
        "error",
        vec![vm.types.exception.clone()],
        Layout::Exception,
        false,
    );
    vm.set_type_attr(&error, "__module__", Value::str("termios"));
    Value::Type(error)
}

// The modules' texts, and their struct sequences' fields (name, doc), as CPython's.

pub const PWD_DOC: &str = "This module provides access to the Unix password database.
It is available on all Unix versions.

Password database entries are reported as 7-tuples containing the following
items from the password database (see `<pwd.h>'), in order:
pw_name, pw_passwd, pw_uid, pw_gid, pw_gecos, pw_dir, pw_shell.
The uid and gid items are integers, all others are strings. An
exception is raised if the entry asked for cannot be found.";

pub const GRP_DOC: &str = "Access to the Unix group database.

Group entries are reported as 4-tuples containing the following fields
from the group database, in order:

  gr_name   - name of the group
  gr_passwd - group password (encrypted); often empty
  gr_gid    - numeric ID of the group
  gr_mem    - list of members

The gid is an integer, name and password are strings.  (Note that most
users are not explicitly listed as members of the groups they are in
according to the password database.  Check both databases to get
complete membership information.)";

pub const PASSWD_DOC: &str = "pwd.struct_passwd: Results from getpw*() routines.

This object may be accessed either as a tuple of
  (pw_name,pw_passwd,pw_uid,pw_gid,pw_gecos,pw_dir,pw_shell)
or via the object attributes as named in the above tuple.";

pub const GROUP_DOC: &str = "grp.struct_group: Results from getgr*() routines.

This object may be accessed either as a tuple of
  (gr_name,gr_passwd,gr_gid,gr_mem)
or via the object attributes as named in the above tuple.
";

pub const RUSAGE_DOC: &str = "struct_rusage: Result from getrusage.

This object may be accessed either as a tuple of
    (utime,stime,maxrss,ixrss,idrss,isrss,minflt,majflt,
    nswap,inblock,oublock,msgsnd,msgrcv,nsignals,nvcsw,nivcsw)
or via the attributes ru_utime, ru_stime, ru_maxrss, and so on.";

pub const FCNTL_DOC: &str = "This module performs file control and I/O control on file
descriptors.  It is an interface to the fcntl() and ioctl() Unix
routines.  File descriptors can be obtained with the fileno() method of
a file or socket object.";

pub const TERMIOS_DOC: &str =
    "This module provides an interface to the Posix calls for tty I/O control.
For a complete description of these calls, see the Posix or Unix manual
pages. It is only available for those Unix versions that support Posix
termios style tty I/O control.

All functions in this module take a file descriptor fd as their first
argument. This can be an integer file descriptor, such as returned by
sys.stdin.fileno(), or a file object, such as sys.stdin itself.";

pub const PASSWD_FIELDS: &[(&str, &str)] = &[
    ("pw_name", "user name"),
    ("pw_passwd", "password"),
    ("pw_uid", "user id"),
    ("pw_gid", "group id"),
    ("pw_gecos", "real name"),
    ("pw_dir", "home directory"),
    ("pw_shell", "shell program"),
];

pub const GROUP_FIELDS: &[(&str, &str)] = &[
    ("gr_name", "group name"),
    ("gr_passwd", "password"),
    ("gr_gid", "group id"),
    ("gr_mem", "group members"),
];

pub const RUSAGE_FIELDS: &[(&str, &str)] = &[
    ("ru_utime", "user time used"),
    ("ru_stime", "system time used"),
    ("ru_maxrss", "max. resident set size"),
    ("ru_ixrss", "shared memory size"),
    ("ru_idrss", "unshared data size"),
    ("ru_isrss", "unshared stack size"),
    ("ru_minflt", "page faults not requiring I/O"),
    ("ru_majflt", "page faults requiring I/O"),
    ("ru_nswap", "number of swap outs"),
    ("ru_inblock", "block input operations"),
    ("ru_oublock", "block output operations"),
    ("ru_msgsnd", "IPC messages sent"),
    ("ru_msgrcv", "IPC messages received"),
    ("ru_nsignals", "signals received"),
    ("ru_nvcsw", "voluntary context switches"),
    ("ru_nivcsw", "involuntary context switches"),
];

/// `termios`'s names: speeds, `tcsetattr`/`tcflush`/`tcflow`'s selectors, the flag bits of
/// the four mode words, the indices of the control characters, the `ioctl` requests.
pub const TERMIOS: &[(&str, i64)] = &[
    ("B0", 0),
    ("B50", 1),
    ("B75", 2),
    ("B110", 3),
    ("B134", 4),
    ("B150", 5),
    ("B200", 6),
    ("B300", 7),
    ("B600", 8),
    ("B1200", 9),
    ("B1800", 10),
    ("B2400", 11),
    ("B4800", 12),
    ("B9600", 13),
    ("B19200", 14),
    ("B38400", 15),
    ("B57600", 4097),
    ("B115200", 4098),
    ("B230400", 4099),
    ("B460800", 4100),
    ("B500000", 4101),
    ("B576000", 4102),
    ("B921600", 4103),
    ("B1000000", 4104),
    ("B1152000", 4105),
    ("B1500000", 4106),
    ("B2000000", 4107),
    ("B2500000", 4108),
    ("B3000000", 4109),
    ("B3500000", 4110),
    ("B4000000", 4111),
    ("CBAUDEX", 4096),
    ("TCSANOW", 0),
    ("TCSADRAIN", 1),
    ("TCSAFLUSH", 2),
    ("TCIFLUSH", 0),
    ("TCOFLUSH", 1),
    ("TCIOFLUSH", 2),
    ("TCOOFF", 0),
    ("TCOON", 1),
    ("TCIOFF", 2),
    ("TCION", 3),
    ("IGNBRK", 1),
    ("BRKINT", 2),
    ("IGNPAR", 4),
    ("PARMRK", 8),
    ("INPCK", 16),
    ("ISTRIP", 32),
    ("INLCR", 64),
    ("IGNCR", 128),
    ("ICRNL", 256),
    ("IUCLC", 512),
    ("IXON", 1024),
    ("IXANY", 2048),
    ("IXOFF", 4096),
    ("IMAXBEL", 8192),
    ("IUTF8", 16384),
    ("OPOST", 1),
    ("OLCUC", 2),
    ("ONLCR", 4),
    ("OCRNL", 8),
    ("ONOCR", 16),
    ("ONLRET", 32),
    ("OFILL", 64),
    ("OFDEL", 128),
    ("NLDLY", 256),
    ("CRDLY", 1536),
    ("TABDLY", 6144),
    ("BSDLY", 8192),
    ("VTDLY", 16384),
    ("FFDLY", 32768),
    ("NL0", 0),
    ("NL1", 256),
    ("CR0", 0),
    ("CR1", 512),
    ("CR2", 1024),
    ("CR3", 1536),
    ("TAB0", 0),
    ("TAB1", 2048),
    ("TAB2", 4096),
    ("TAB3", 6144),
    ("XTABS", 6144),
    ("BS0", 0),
    ("BS1", 8192),
    ("VT0", 0),
    ("VT1", 16384),
    ("FF0", 0),
    ("FF1", 32768),
    ("CSIZE", 48),
    ("CSTOPB", 64),
    ("CREAD", 128),
    ("PARENB", 256),
    ("PARODD", 512),
    ("HUPCL", 1024),
    ("CLOCAL", 2048),
    ("CIBAUD", 269418496),
    ("CRTSCTS", 2147483648),
    ("CS5", 0),
    ("CS6", 16),
    ("CS7", 32),
    ("CS8", 48),
    ("ISIG", 1),
    ("ICANON", 2),
    ("XCASE", 4),
    ("ECHO", 8),
    ("ECHOE", 16),
    ("ECHOK", 32),
    ("ECHONL", 64),
    ("ECHOCTL", 512),
    ("ECHOPRT", 1024),
    ("ECHOKE", 2048),
    ("FLUSHO", 4096),
    ("NOFLSH", 128),
    ("TOSTOP", 256),
    ("PENDIN", 16384),
    ("IEXTEN", 32768),
    ("EXTPROC", 65536),
    ("VINTR", 0),
    ("VQUIT", 1),
    ("VERASE", 2),
    ("VKILL", 3),
    ("VEOF", 4),
    ("VTIME", 5),
    ("VMIN", 6),
    ("VSWTC", 7),
    ("VSWTCH", 7),
    ("VSTART", 8),
    ("VSTOP", 9),
    ("VSUSP", 10),
    ("VEOL", 11),
    ("VREPRINT", 12),
    ("VDISCARD", 13),
    ("VWERASE", 14),
    ("VLNEXT", 15),
    ("VEOL2", 16),
    ("CBAUD", 4111),
    ("CDSUSP", 25),
    ("CEOF", 4),
    ("CEOL", 0),
    ("CEOT", 4),
    ("CERASE", 127),
    ("CFLUSH", 15),
    ("CINTR", 3),
    ("CKILL", 21),
    ("CLNEXT", 22),
    ("CQUIT", 28),
    ("CRPRNT", 18),
    ("CSTART", 17),
    ("CSTOP", 19),
    ("CSUSP", 26),
    ("CWERASE", 23),
    ("EXTA", 14),
    ("EXTB", 15),
    ("FIOASYNC", 21586),
    ("FIOCLEX", 21585),
    ("FIONBIO", 21537),
    ("FIONCLEX", 21584),
    ("FIONREAD", 21531),
    ("IOCSIZE_MASK", 1073676288),
    ("IOCSIZE_SHIFT", 16),
    ("NCC", 8),
    ("NCCS", 32),
    ("N_MOUSE", 2),
    ("N_PPP", 3),
    ("N_SLIP", 1),
    ("N_STRIP", 4),
    ("N_TTY", 0),
    ("TCFLSH", 21515),
    ("TCGETA", 21509),
    ("TCGETS", 21505),
    ("TCSBRK", 21513),
    ("TCSBRKP", 21541),
    ("TCSETA", 21510),
    ("TCSETAF", 21512),
    ("TCSETAW", 21511),
    ("TCSETS", 21506),
    ("TCSETSF", 21508),
    ("TCSETSW", 21507),
    ("TCXONC", 21514),
    ("TIOCCONS", 21533),
    ("TIOCEXCL", 21516),
    ("TIOCGETD", 21540),
    ("TIOCGICOUNT", 21597),
    ("TIOCGLCKTRMIOS", 21590),
    ("TIOCGPGRP", 21519),
    ("TIOCGSERIAL", 21534),
    ("TIOCGSOFTCAR", 21529),
    ("TIOCGWINSZ", 21523),
    ("TIOCINQ", 21531),
    ("TIOCLINUX", 21532),
    ("TIOCMBIC", 21527),
    ("TIOCMBIS", 21526),
    ("TIOCMGET", 21525),
    ("TIOCMIWAIT", 21596),
    ("TIOCMSET", 21528),
    ("TIOCM_CAR", 64),
    ("TIOCM_CD", 64),
    ("TIOCM_CTS", 32),
    ("TIOCM_DSR", 256),
    ("TIOCM_DTR", 2),
    ("TIOCM_LE", 1),
    ("TIOCM_RI", 128),
    ("TIOCM_RNG", 128),
    ("TIOCM_RTS", 4),
    ("TIOCM_SR", 16),
    ("TIOCM_ST", 8),
    ("TIOCNOTTY", 21538),
    ("TIOCNXCL", 21517),
    ("TIOCOUTQ", 21521),
    ("TIOCPKT", 21536),
    ("TIOCPKT_DATA", 0),
    ("TIOCPKT_DOSTOP", 32),
    ("TIOCPKT_FLUSHREAD", 1),
    ("TIOCPKT_FLUSHWRITE", 2),
    ("TIOCPKT_NOSTOP", 16),
    ("TIOCPKT_START", 8),
    ("TIOCPKT_STOP", 4),
    ("TIOCSCTTY", 21518),
    ("TIOCSERCONFIG", 21587),
    ("TIOCSERGETLSR", 21593),
    ("TIOCSERGETMULTI", 21594),
    ("TIOCSERGSTRUCT", 21592),
    ("TIOCSERGWILD", 21588),
    ("TIOCSERSETMULTI", 21595),
    ("TIOCSERSWILD", 21589),
    ("TIOCSER_TEMT", 1),
    ("TIOCSETD", 21539),
    ("TIOCSLCKTRMIOS", 21591),
    ("TIOCSPGRP", 21520),
    ("TIOCSSERIAL", 21535),
    ("TIOCSSOFTCAR", 21530),
    ("TIOCSTI", 21522),
    ("TIOCSWINSZ", 21524),
    ("_POSIX_VDISABLE", 0),
];

/// `fcntl`'s names: the commands, the lock kinds, `flock`'s operations, the seals and
/// hints, the `dnotify` events.
pub const FCNTL: &[(&str, i64)] = &[
    ("LOCK_SH", 1),
    ("LOCK_EX", 2),
    ("LOCK_NB", 4),
    ("LOCK_UN", 8),
    ("LOCK_MAND", 32),
    ("LOCK_READ", 64),
    ("LOCK_WRITE", 128),
    ("LOCK_RW", 192),
    ("F_DUPFD", 0),
    ("F_DUPFD_CLOEXEC", 1030),
    ("F_GETFD", 1),
    ("F_SETFD", 2),
    ("F_GETFL", 3),
    ("F_SETFL", 4),
    ("F_GETLK", 5),
    ("F_SETLK", 6),
    ("F_SETLKW", 7),
    ("F_OFD_GETLK", 36),
    ("F_OFD_SETLK", 37),
    ("F_OFD_SETLKW", 38),
    ("F_GETOWN", 9),
    ("F_SETOWN", 8),
    ("F_GETSIG", 11),
    ("F_SETSIG", 10),
    ("F_RDLCK", 0),
    ("F_WRLCK", 1),
    ("F_UNLCK", 2),
    ("F_GETLK64", 5),
    ("F_SETLK64", 6),
    ("F_SETLKW64", 7),
    ("FASYNC", 8192),
    ("F_SETLEASE", 1024),
    ("F_GETLEASE", 1025),
    ("F_NOTIFY", 1026),
    ("F_EXLCK", 4),
    ("F_SHLCK", 8),
    ("F_SETPIPE_SZ", 1031),
    ("F_GETPIPE_SZ", 1032),
    ("FICLONE", 1074041865),
    ("FICLONERANGE", 1075876877),
    ("F_GETOWN_EX", 16),
    ("F_SETOWN_EX", 15),
    ("F_OWNER_TID", 0),
    ("F_OWNER_PID", 1),
    ("F_OWNER_PGRP", 2),
    ("F_GET_RW_HINT", 1035),
    ("F_SET_RW_HINT", 1036),
    ("F_GET_FILE_RW_HINT", 1037),
    ("F_SET_FILE_RW_HINT", 1038),
    ("RWH_WRITE_LIFE_NOT_SET", 0),
    ("RWH_WRITE_LIFE_NONE", 1),
    ("RWH_WRITE_LIFE_SHORT", 2),
    ("RWH_WRITE_LIFE_MEDIUM", 3),
    ("RWH_WRITE_LIFE_LONG", 4),
    ("RWH_WRITE_LIFE_EXTREME", 5),
    ("FD_CLOEXEC", 1),
    ("DN_ACCESS", 1),
    ("DN_MODIFY", 2),
    ("DN_CREATE", 4),
    ("DN_DELETE", 8),
    ("DN_RENAME", 16),
    ("DN_ATTRIB", 32),
    ("DN_MULTISHOT", 2147483648),
    ("F_ADD_SEALS", 1033),
    ("F_GET_SEALS", 1034),
    ("F_SEAL_SEAL", 1),
    ("F_SEAL_SHRINK", 2),
    ("F_SEAL_GROW", 4),
    ("F_SEAL_WRITE", 8),
    ("F_SEAL_FUTURE_WRITE", 16),
];

/// `resource`'s names: the limits and `getrusage`'s targets (`RLIM_INFINITY` apart).
pub const RESOURCE: &[(&str, i64)] = &[
    ("RLIMIT_CPU", 0),
    ("RLIMIT_FSIZE", 1),
    ("RLIMIT_DATA", 2),
    ("RLIMIT_STACK", 3),
    ("RLIMIT_CORE", 4),
    ("RLIMIT_NOFILE", 7),
    ("RLIMIT_OFILE", 7),
    ("RLIMIT_AS", 9),
    ("RLIMIT_RSS", 5),
    ("RLIMIT_NPROC", 6),
    ("RLIMIT_MEMLOCK", 8),
    ("RLIMIT_MSGQUEUE", 12),
    ("RLIMIT_NICE", 13),
    ("RLIMIT_RTPRIO", 14),
    ("RLIMIT_RTTIME", 15),
    ("RLIMIT_SIGPENDING", 11),
    ("RUSAGE_SELF", 0),
    ("RUSAGE_CHILDREN", -1),
    ("RUSAGE_THREAD", 1),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn value(table: &[(&str, i64)], name: &str) -> i64 {
        table
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
            .unwrap_or(i64::MIN)
    }

    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn the_numbers_are_libcs() {
        assert_eq!(value(TERMIOS, "B0"), libc::B0 as i64, "B0");
        assert_eq!(value(TERMIOS, "B50"), libc::B50 as i64, "B50");
        assert_eq!(value(TERMIOS, "B75"), libc::B75 as i64, "B75");
        assert_eq!(value(TERMIOS, "B110"), libc::B110 as i64, "B110");
        assert_eq!(value(TERMIOS, "B134"), libc::B134 as i64, "B134");
        assert_eq!(value(TERMIOS, "B150"), libc::B150 as i64, "B150");
        assert_eq!(value(TERMIOS, "B200"), libc::B200 as i64, "B200");
        assert_eq!(value(TERMIOS, "B300"), libc::B300 as i64, "B300");
        assert_eq!(value(TERMIOS, "B600"), libc::B600 as i64, "B600");
        assert_eq!(value(TERMIOS, "B1200"), libc::B1200 as i64, "B1200");
        assert_eq!(value(TERMIOS, "B1800"), libc::B1800 as i64, "B1800");
        assert_eq!(value(TERMIOS, "B2400"), libc::B2400 as i64, "B2400");
        assert_eq!(value(TERMIOS, "B4800"), libc::B4800 as i64, "B4800");
        assert_eq!(value(TERMIOS, "B9600"), libc::B9600 as i64, "B9600");
        assert_eq!(value(TERMIOS, "B19200"), libc::B19200 as i64, "B19200");
        assert_eq!(value(TERMIOS, "B38400"), libc::B38400 as i64, "B38400");
        assert_eq!(value(TERMIOS, "B57600"), libc::B57600 as i64, "B57600");
        assert_eq!(value(TERMIOS, "B115200"), libc::B115200 as i64, "B115200");
        assert_eq!(value(TERMIOS, "B230400"), libc::B230400 as i64, "B230400");
        assert_eq!(value(TERMIOS, "B460800"), libc::B460800 as i64, "B460800");
        assert_eq!(value(TERMIOS, "B500000"), libc::B500000 as i64, "B500000");
        assert_eq!(value(TERMIOS, "B576000"), libc::B576000 as i64, "B576000");
        assert_eq!(value(TERMIOS, "B921600"), libc::B921600 as i64, "B921600");
        assert_eq!(
            value(TERMIOS, "B1000000"),
            libc::B1000000 as i64,
            "B1000000"
        );
        assert_eq!(
            value(TERMIOS, "B1152000"),
            libc::B1152000 as i64,
            "B1152000"
        );
        assert_eq!(
            value(TERMIOS, "B1500000"),
            libc::B1500000 as i64,
            "B1500000"
        );
        assert_eq!(
            value(TERMIOS, "B2000000"),
            libc::B2000000 as i64,
            "B2000000"
        );
        assert_eq!(
            value(TERMIOS, "B2500000"),
            libc::B2500000 as i64,
            "B2500000"
        );
        assert_eq!(
            value(TERMIOS, "B3000000"),
            libc::B3000000 as i64,
            "B3000000"
        );
        assert_eq!(
            value(TERMIOS, "B3500000"),
            libc::B3500000 as i64,
            "B3500000"
        );
        assert_eq!(
            value(TERMIOS, "B4000000"),
            libc::B4000000 as i64,
            "B4000000"
        );
        assert_eq!(value(TERMIOS, "CBAUDEX"), libc::CBAUDEX as i64, "CBAUDEX");
        assert_eq!(value(TERMIOS, "TCSANOW"), libc::TCSANOW as i64, "TCSANOW");
        assert_eq!(
            value(TERMIOS, "TCSADRAIN"),
            libc::TCSADRAIN as i64,
            "TCSADRAIN"
        );
        assert_eq!(
            value(TERMIOS, "TCSAFLUSH"),
            libc::TCSAFLUSH as i64,
            "TCSAFLUSH"
        );
        assert_eq!(
            value(TERMIOS, "TCIFLUSH"),
            libc::TCIFLUSH as i64,
            "TCIFLUSH"
        );
        assert_eq!(
            value(TERMIOS, "TCOFLUSH"),
            libc::TCOFLUSH as i64,
            "TCOFLUSH"
        );
        assert_eq!(
            value(TERMIOS, "TCIOFLUSH"),
            libc::TCIOFLUSH as i64,
            "TCIOFLUSH"
        );
        assert_eq!(value(TERMIOS, "TCOOFF"), libc::TCOOFF as i64, "TCOOFF");
        assert_eq!(value(TERMIOS, "TCOON"), libc::TCOON as i64, "TCOON");
        assert_eq!(value(TERMIOS, "TCIOFF"), libc::TCIOFF as i64, "TCIOFF");
        assert_eq!(value(TERMIOS, "TCION"), libc::TCION as i64, "TCION");
        assert_eq!(value(TERMIOS, "IGNBRK"), libc::IGNBRK as i64, "IGNBRK");
        assert_eq!(value(TERMIOS, "BRKINT"), libc::BRKINT as i64, "BRKINT");
        assert_eq!(value(TERMIOS, "IGNPAR"), libc::IGNPAR as i64, "IGNPAR");
        assert_eq!(value(TERMIOS, "PARMRK"), libc::PARMRK as i64, "PARMRK");
        assert_eq!(value(TERMIOS, "INPCK"), libc::INPCK as i64, "INPCK");
        assert_eq!(value(TERMIOS, "ISTRIP"), libc::ISTRIP as i64, "ISTRIP");
        assert_eq!(value(TERMIOS, "INLCR"), libc::INLCR as i64, "INLCR");
        assert_eq!(value(TERMIOS, "IGNCR"), libc::IGNCR as i64, "IGNCR");
        assert_eq!(value(TERMIOS, "ICRNL"), libc::ICRNL as i64, "ICRNL");
        assert_eq!(value(TERMIOS, "IUCLC"), libc::IUCLC as i64, "IUCLC");
        assert_eq!(value(TERMIOS, "IXON"), libc::IXON as i64, "IXON");
        assert_eq!(value(TERMIOS, "IXANY"), libc::IXANY as i64, "IXANY");
        assert_eq!(value(TERMIOS, "IXOFF"), libc::IXOFF as i64, "IXOFF");
        assert_eq!(value(TERMIOS, "IMAXBEL"), libc::IMAXBEL as i64, "IMAXBEL");
        assert_eq!(value(TERMIOS, "IUTF8"), libc::IUTF8 as i64, "IUTF8");
        assert_eq!(value(TERMIOS, "OPOST"), libc::OPOST as i64, "OPOST");
        assert_eq!(value(TERMIOS, "OLCUC"), libc::OLCUC as i64, "OLCUC");
        assert_eq!(value(TERMIOS, "ONLCR"), libc::ONLCR as i64, "ONLCR");
        assert_eq!(value(TERMIOS, "OCRNL"), libc::OCRNL as i64, "OCRNL");
        assert_eq!(value(TERMIOS, "ONOCR"), libc::ONOCR as i64, "ONOCR");
        assert_eq!(value(TERMIOS, "ONLRET"), libc::ONLRET as i64, "ONLRET");
        assert_eq!(value(TERMIOS, "OFILL"), libc::OFILL as i64, "OFILL");
        assert_eq!(value(TERMIOS, "OFDEL"), libc::OFDEL as i64, "OFDEL");
        assert_eq!(value(TERMIOS, "NLDLY"), libc::NLDLY as i64, "NLDLY");
        assert_eq!(value(TERMIOS, "CRDLY"), libc::CRDLY as i64, "CRDLY");
        assert_eq!(value(TERMIOS, "TABDLY"), libc::TABDLY as i64, "TABDLY");
        assert_eq!(value(TERMIOS, "BSDLY"), libc::BSDLY as i64, "BSDLY");
        assert_eq!(value(TERMIOS, "VTDLY"), libc::VTDLY as i64, "VTDLY");
        assert_eq!(value(TERMIOS, "FFDLY"), libc::FFDLY as i64, "FFDLY");
        assert_eq!(value(TERMIOS, "NL0"), libc::NL0 as i64, "NL0");
        assert_eq!(value(TERMIOS, "NL1"), libc::NL1 as i64, "NL1");
        assert_eq!(value(TERMIOS, "CR0"), libc::CR0 as i64, "CR0");
        assert_eq!(value(TERMIOS, "CR1"), libc::CR1 as i64, "CR1");
        assert_eq!(value(TERMIOS, "CR2"), libc::CR2 as i64, "CR2");
        assert_eq!(value(TERMIOS, "CR3"), libc::CR3 as i64, "CR3");
        assert_eq!(value(TERMIOS, "TAB0"), libc::TAB0 as i64, "TAB0");
        assert_eq!(value(TERMIOS, "TAB1"), libc::TAB1 as i64, "TAB1");
        assert_eq!(value(TERMIOS, "TAB2"), libc::TAB2 as i64, "TAB2");
        assert_eq!(value(TERMIOS, "TAB3"), libc::TAB3 as i64, "TAB3");
        assert_eq!(value(TERMIOS, "XTABS"), libc::XTABS as i64, "XTABS");
        assert_eq!(value(TERMIOS, "BS0"), libc::BS0 as i64, "BS0");
        assert_eq!(value(TERMIOS, "BS1"), libc::BS1 as i64, "BS1");
        assert_eq!(value(TERMIOS, "VT0"), libc::VT0 as i64, "VT0");
        assert_eq!(value(TERMIOS, "VT1"), libc::VT1 as i64, "VT1");
        assert_eq!(value(TERMIOS, "FF0"), libc::FF0 as i64, "FF0");
        assert_eq!(value(TERMIOS, "FF1"), libc::FF1 as i64, "FF1");
        assert_eq!(value(TERMIOS, "CSIZE"), libc::CSIZE as i64, "CSIZE");
        assert_eq!(value(TERMIOS, "CSTOPB"), libc::CSTOPB as i64, "CSTOPB");
        assert_eq!(value(TERMIOS, "CREAD"), libc::CREAD as i64, "CREAD");
        assert_eq!(value(TERMIOS, "PARENB"), libc::PARENB as i64, "PARENB");
        assert_eq!(value(TERMIOS, "PARODD"), libc::PARODD as i64, "PARODD");
        assert_eq!(value(TERMIOS, "HUPCL"), libc::HUPCL as i64, "HUPCL");
        assert_eq!(value(TERMIOS, "CLOCAL"), libc::CLOCAL as i64, "CLOCAL");
        assert_eq!(value(TERMIOS, "CIBAUD"), libc::CIBAUD as i64, "CIBAUD");
        assert_eq!(value(TERMIOS, "CRTSCTS"), libc::CRTSCTS as i64, "CRTSCTS");
        assert_eq!(value(TERMIOS, "CS5"), libc::CS5 as i64, "CS5");
        assert_eq!(value(TERMIOS, "CS6"), libc::CS6 as i64, "CS6");
        assert_eq!(value(TERMIOS, "CS7"), libc::CS7 as i64, "CS7");
        assert_eq!(value(TERMIOS, "CS8"), libc::CS8 as i64, "CS8");
        assert_eq!(value(TERMIOS, "ISIG"), libc::ISIG as i64, "ISIG");
        assert_eq!(value(TERMIOS, "ICANON"), libc::ICANON as i64, "ICANON");
        assert_eq!(value(TERMIOS, "XCASE"), libc::XCASE as i64, "XCASE");
        assert_eq!(value(TERMIOS, "ECHO"), libc::ECHO as i64, "ECHO");
        assert_eq!(value(TERMIOS, "ECHOE"), libc::ECHOE as i64, "ECHOE");
        assert_eq!(value(TERMIOS, "ECHOK"), libc::ECHOK as i64, "ECHOK");
        assert_eq!(value(TERMIOS, "ECHONL"), libc::ECHONL as i64, "ECHONL");
        assert_eq!(value(TERMIOS, "ECHOCTL"), libc::ECHOCTL as i64, "ECHOCTL");
        assert_eq!(value(TERMIOS, "ECHOPRT"), libc::ECHOPRT as i64, "ECHOPRT");
        assert_eq!(value(TERMIOS, "ECHOKE"), libc::ECHOKE as i64, "ECHOKE");
        assert_eq!(value(TERMIOS, "FLUSHO"), libc::FLUSHO as i64, "FLUSHO");
        assert_eq!(value(TERMIOS, "NOFLSH"), libc::NOFLSH as i64, "NOFLSH");
        assert_eq!(value(TERMIOS, "TOSTOP"), libc::TOSTOP as i64, "TOSTOP");
        assert_eq!(value(TERMIOS, "PENDIN"), libc::PENDIN as i64, "PENDIN");
        assert_eq!(value(TERMIOS, "IEXTEN"), libc::IEXTEN as i64, "IEXTEN");
        assert_eq!(value(TERMIOS, "EXTPROC"), libc::EXTPROC as i64, "EXTPROC");
        assert_eq!(value(TERMIOS, "VINTR"), libc::VINTR as i64, "VINTR");
        assert_eq!(value(TERMIOS, "VQUIT"), libc::VQUIT as i64, "VQUIT");
        assert_eq!(value(TERMIOS, "VERASE"), libc::VERASE as i64, "VERASE");
        assert_eq!(value(TERMIOS, "VKILL"), libc::VKILL as i64, "VKILL");
        assert_eq!(value(TERMIOS, "VEOF"), libc::VEOF as i64, "VEOF");
        assert_eq!(value(TERMIOS, "VTIME"), libc::VTIME as i64, "VTIME");
        assert_eq!(value(TERMIOS, "VMIN"), libc::VMIN as i64, "VMIN");
        assert_eq!(value(TERMIOS, "VSWTC"), libc::VSWTC as i64, "VSWTC");
        assert_eq!(value(TERMIOS, "VSTART"), libc::VSTART as i64, "VSTART");
        assert_eq!(value(TERMIOS, "VSTOP"), libc::VSTOP as i64, "VSTOP");
        assert_eq!(value(TERMIOS, "VSUSP"), libc::VSUSP as i64, "VSUSP");
        assert_eq!(value(TERMIOS, "VEOL"), libc::VEOL as i64, "VEOL");
        assert_eq!(
            value(TERMIOS, "VREPRINT"),
            libc::VREPRINT as i64,
            "VREPRINT"
        );
        assert_eq!(
            value(TERMIOS, "VDISCARD"),
            libc::VDISCARD as i64,
            "VDISCARD"
        );
        assert_eq!(value(TERMIOS, "VWERASE"), libc::VWERASE as i64, "VWERASE");
        assert_eq!(value(TERMIOS, "VLNEXT"), libc::VLNEXT as i64, "VLNEXT");
        assert_eq!(value(TERMIOS, "VEOL2"), libc::VEOL2 as i64, "VEOL2");
        assert_eq!(value(TERMIOS, "CBAUD"), libc::CBAUD as i64, "CBAUD");
        assert_eq!(value(TERMIOS, "EXTA"), libc::EXTA as i64, "EXTA");
        assert_eq!(value(TERMIOS, "EXTB"), libc::EXTB as i64, "EXTB");
        assert_eq!(
            value(TERMIOS, "FIOASYNC"),
            libc::FIOASYNC as i64,
            "FIOASYNC"
        );
        assert_eq!(value(TERMIOS, "FIOCLEX"), libc::FIOCLEX as i64, "FIOCLEX");
        assert_eq!(value(TERMIOS, "FIONBIO"), libc::FIONBIO as i64, "FIONBIO");
        assert_eq!(
            value(TERMIOS, "FIONCLEX"),
            libc::FIONCLEX as i64,
            "FIONCLEX"
        );
        assert_eq!(
            value(TERMIOS, "FIONREAD"),
            libc::FIONREAD as i64,
            "FIONREAD"
        );
        assert_eq!(value(TERMIOS, "NCCS"), libc::NCCS as i64, "NCCS");
        assert_eq!(value(TERMIOS, "TCFLSH"), libc::TCFLSH as i64, "TCFLSH");
        assert_eq!(value(TERMIOS, "TCGETA"), libc::TCGETA as i64, "TCGETA");
        assert_eq!(value(TERMIOS, "TCGETS"), libc::TCGETS as i64, "TCGETS");
        assert_eq!(value(TERMIOS, "TCSBRK"), libc::TCSBRK as i64, "TCSBRK");
        assert_eq!(value(TERMIOS, "TCSBRKP"), libc::TCSBRKP as i64, "TCSBRKP");
        assert_eq!(value(TERMIOS, "TCSETA"), libc::TCSETA as i64, "TCSETA");
        assert_eq!(value(TERMIOS, "TCSETAF"), libc::TCSETAF as i64, "TCSETAF");
        assert_eq!(value(TERMIOS, "TCSETAW"), libc::TCSETAW as i64, "TCSETAW");
        assert_eq!(value(TERMIOS, "TCSETS"), libc::TCSETS as i64, "TCSETS");
        assert_eq!(value(TERMIOS, "TCSETSF"), libc::TCSETSF as i64, "TCSETSF");
        assert_eq!(value(TERMIOS, "TCSETSW"), libc::TCSETSW as i64, "TCSETSW");
        assert_eq!(value(TERMIOS, "TCXONC"), libc::TCXONC as i64, "TCXONC");
        assert_eq!(
            value(TERMIOS, "TIOCCONS"),
            libc::TIOCCONS as i64,
            "TIOCCONS"
        );
        assert_eq!(
            value(TERMIOS, "TIOCEXCL"),
            libc::TIOCEXCL as i64,
            "TIOCEXCL"
        );
        assert_eq!(
            value(TERMIOS, "TIOCGETD"),
            libc::TIOCGETD as i64,
            "TIOCGETD"
        );
        assert_eq!(
            value(TERMIOS, "TIOCGICOUNT"),
            libc::TIOCGICOUNT as i64,
            "TIOCGICOUNT"
        );
        assert_eq!(
            value(TERMIOS, "TIOCGLCKTRMIOS"),
            libc::TIOCGLCKTRMIOS as i64,
            "TIOCGLCKTRMIOS"
        );
        assert_eq!(
            value(TERMIOS, "TIOCGPGRP"),
            libc::TIOCGPGRP as i64,
            "TIOCGPGRP"
        );
        assert_eq!(
            value(TERMIOS, "TIOCGSERIAL"),
            libc::TIOCGSERIAL as i64,
            "TIOCGSERIAL"
        );
        assert_eq!(
            value(TERMIOS, "TIOCGSOFTCAR"),
            libc::TIOCGSOFTCAR as i64,
            "TIOCGSOFTCAR"
        );
        assert_eq!(
            value(TERMIOS, "TIOCGWINSZ"),
            libc::TIOCGWINSZ as i64,
            "TIOCGWINSZ"
        );
        assert_eq!(value(TERMIOS, "TIOCINQ"), libc::TIOCINQ as i64, "TIOCINQ");
        assert_eq!(
            value(TERMIOS, "TIOCLINUX"),
            libc::TIOCLINUX as i64,
            "TIOCLINUX"
        );
        assert_eq!(
            value(TERMIOS, "TIOCMBIC"),
            libc::TIOCMBIC as i64,
            "TIOCMBIC"
        );
        assert_eq!(
            value(TERMIOS, "TIOCMBIS"),
            libc::TIOCMBIS as i64,
            "TIOCMBIS"
        );
        assert_eq!(
            value(TERMIOS, "TIOCMGET"),
            libc::TIOCMGET as i64,
            "TIOCMGET"
        );
        assert_eq!(
            value(TERMIOS, "TIOCMIWAIT"),
            libc::TIOCMIWAIT as i64,
            "TIOCMIWAIT"
        );
        assert_eq!(
            value(TERMIOS, "TIOCMSET"),
            libc::TIOCMSET as i64,
            "TIOCMSET"
        );
        assert_eq!(
            value(TERMIOS, "TIOCM_CAR"),
            libc::TIOCM_CAR as i64,
            "TIOCM_CAR"
        );
        assert_eq!(
            value(TERMIOS, "TIOCM_CD"),
            libc::TIOCM_CD as i64,
            "TIOCM_CD"
        );
        assert_eq!(
            value(TERMIOS, "TIOCM_CTS"),
            libc::TIOCM_CTS as i64,
            "TIOCM_CTS"
        );
        assert_eq!(
            value(TERMIOS, "TIOCM_DSR"),
            libc::TIOCM_DSR as i64,
            "TIOCM_DSR"
        );
        assert_eq!(
            value(TERMIOS, "TIOCM_DTR"),
            libc::TIOCM_DTR as i64,
            "TIOCM_DTR"
        );
        assert_eq!(
            value(TERMIOS, "TIOCM_LE"),
            libc::TIOCM_LE as i64,
            "TIOCM_LE"
        );
        assert_eq!(
            value(TERMIOS, "TIOCM_RI"),
            libc::TIOCM_RI as i64,
            "TIOCM_RI"
        );
        assert_eq!(
            value(TERMIOS, "TIOCM_RNG"),
            libc::TIOCM_RNG as i64,
            "TIOCM_RNG"
        );
        assert_eq!(
            value(TERMIOS, "TIOCM_RTS"),
            libc::TIOCM_RTS as i64,
            "TIOCM_RTS"
        );
        assert_eq!(
            value(TERMIOS, "TIOCM_SR"),
            libc::TIOCM_SR as i64,
            "TIOCM_SR"
        );
        assert_eq!(
            value(TERMIOS, "TIOCM_ST"),
            libc::TIOCM_ST as i64,
            "TIOCM_ST"
        );
        assert_eq!(
            value(TERMIOS, "TIOCNOTTY"),
            libc::TIOCNOTTY as i64,
            "TIOCNOTTY"
        );
        assert_eq!(
            value(TERMIOS, "TIOCNXCL"),
            libc::TIOCNXCL as i64,
            "TIOCNXCL"
        );
        assert_eq!(
            value(TERMIOS, "TIOCOUTQ"),
            libc::TIOCOUTQ as i64,
            "TIOCOUTQ"
        );
        assert_eq!(value(TERMIOS, "TIOCPKT"), libc::TIOCPKT as i64, "TIOCPKT");
        assert_eq!(
            value(TERMIOS, "TIOCSCTTY"),
            libc::TIOCSCTTY as i64,
            "TIOCSCTTY"
        );
        assert_eq!(
            value(TERMIOS, "TIOCSERCONFIG"),
            libc::TIOCSERCONFIG as i64,
            "TIOCSERCONFIG"
        );
        assert_eq!(
            value(TERMIOS, "TIOCSERGETLSR"),
            libc::TIOCSERGETLSR as i64,
            "TIOCSERGETLSR"
        );
        assert_eq!(
            value(TERMIOS, "TIOCSERGETMULTI"),
            libc::TIOCSERGETMULTI as i64,
            "TIOCSERGETMULTI"
        );
        assert_eq!(
            value(TERMIOS, "TIOCSERGSTRUCT"),
            libc::TIOCSERGSTRUCT as i64,
            "TIOCSERGSTRUCT"
        );
        assert_eq!(
            value(TERMIOS, "TIOCSERGWILD"),
            libc::TIOCSERGWILD as i64,
            "TIOCSERGWILD"
        );
        assert_eq!(
            value(TERMIOS, "TIOCSERSETMULTI"),
            libc::TIOCSERSETMULTI as i64,
            "TIOCSERSETMULTI"
        );
        assert_eq!(
            value(TERMIOS, "TIOCSERSWILD"),
            libc::TIOCSERSWILD as i64,
            "TIOCSERSWILD"
        );
        assert_eq!(
            value(TERMIOS, "TIOCSETD"),
            libc::TIOCSETD as i64,
            "TIOCSETD"
        );
        assert_eq!(
            value(TERMIOS, "TIOCSLCKTRMIOS"),
            libc::TIOCSLCKTRMIOS as i64,
            "TIOCSLCKTRMIOS"
        );
        assert_eq!(
            value(TERMIOS, "TIOCSPGRP"),
            libc::TIOCSPGRP as i64,
            "TIOCSPGRP"
        );
        assert_eq!(
            value(TERMIOS, "TIOCSSERIAL"),
            libc::TIOCSSERIAL as i64,
            "TIOCSSERIAL"
        );
        assert_eq!(
            value(TERMIOS, "TIOCSSOFTCAR"),
            libc::TIOCSSOFTCAR as i64,
            "TIOCSSOFTCAR"
        );
        assert_eq!(value(TERMIOS, "TIOCSTI"), libc::TIOCSTI as i64, "TIOCSTI");
        assert_eq!(
            value(TERMIOS, "TIOCSWINSZ"),
            libc::TIOCSWINSZ as i64,
            "TIOCSWINSZ"
        );
        assert_eq!(
            value(TERMIOS, "_POSIX_VDISABLE"),
            libc::_POSIX_VDISABLE as i64,
            "_POSIX_VDISABLE"
        );
        assert_eq!(value(FCNTL, "LOCK_SH"), libc::LOCK_SH as i64, "LOCK_SH");
        assert_eq!(value(FCNTL, "LOCK_EX"), libc::LOCK_EX as i64, "LOCK_EX");
        assert_eq!(value(FCNTL, "LOCK_NB"), libc::LOCK_NB as i64, "LOCK_NB");
        assert_eq!(value(FCNTL, "LOCK_UN"), libc::LOCK_UN as i64, "LOCK_UN");
        assert_eq!(value(FCNTL, "F_DUPFD"), libc::F_DUPFD as i64, "F_DUPFD");
        assert_eq!(
            value(FCNTL, "F_DUPFD_CLOEXEC"),
            libc::F_DUPFD_CLOEXEC as i64,
            "F_DUPFD_CLOEXEC"
        );
        assert_eq!(value(FCNTL, "F_GETFD"), libc::F_GETFD as i64, "F_GETFD");
        assert_eq!(value(FCNTL, "F_SETFD"), libc::F_SETFD as i64, "F_SETFD");
        assert_eq!(value(FCNTL, "F_GETFL"), libc::F_GETFL as i64, "F_GETFL");
        assert_eq!(value(FCNTL, "F_SETFL"), libc::F_SETFL as i64, "F_SETFL");
        assert_eq!(value(FCNTL, "F_GETLK"), libc::F_GETLK as i64, "F_GETLK");
        assert_eq!(value(FCNTL, "F_SETLK"), libc::F_SETLK as i64, "F_SETLK");
        assert_eq!(value(FCNTL, "F_SETLKW"), libc::F_SETLKW as i64, "F_SETLKW");
        assert_eq!(
            value(FCNTL, "F_OFD_GETLK"),
            libc::F_OFD_GETLK as i64,
            "F_OFD_GETLK"
        );
        assert_eq!(
            value(FCNTL, "F_OFD_SETLK"),
            libc::F_OFD_SETLK as i64,
            "F_OFD_SETLK"
        );
        assert_eq!(
            value(FCNTL, "F_OFD_SETLKW"),
            libc::F_OFD_SETLKW as i64,
            "F_OFD_SETLKW"
        );
        assert_eq!(value(FCNTL, "F_GETOWN"), libc::F_GETOWN as i64, "F_GETOWN");
        assert_eq!(value(FCNTL, "F_SETOWN"), libc::F_SETOWN as i64, "F_SETOWN");
        assert_eq!(value(FCNTL, "F_RDLCK"), libc::F_RDLCK as i64, "F_RDLCK");
        assert_eq!(value(FCNTL, "F_WRLCK"), libc::F_WRLCK as i64, "F_WRLCK");
        assert_eq!(value(FCNTL, "F_UNLCK"), libc::F_UNLCK as i64, "F_UNLCK");
        assert_eq!(
            value(FCNTL, "F_SETLEASE"),
            libc::F_SETLEASE as i64,
            "F_SETLEASE"
        );
        assert_eq!(
            value(FCNTL, "F_GETLEASE"),
            libc::F_GETLEASE as i64,
            "F_GETLEASE"
        );
        assert_eq!(value(FCNTL, "F_NOTIFY"), libc::F_NOTIFY as i64, "F_NOTIFY");
        assert_eq!(
            value(FCNTL, "F_SETPIPE_SZ"),
            libc::F_SETPIPE_SZ as i64,
            "F_SETPIPE_SZ"
        );
        assert_eq!(
            value(FCNTL, "F_GETPIPE_SZ"),
            libc::F_GETPIPE_SZ as i64,
            "F_GETPIPE_SZ"
        );
        assert_eq!(value(FCNTL, "FICLONE"), libc::FICLONE as i64, "FICLONE");
        assert_eq!(
            value(FCNTL, "FICLONERANGE"),
            libc::FICLONERANGE as i64,
            "FICLONERANGE"
        );
        assert_eq!(
            value(FCNTL, "FD_CLOEXEC"),
            libc::FD_CLOEXEC as i64,
            "FD_CLOEXEC"
        );
        assert_eq!(
            value(FCNTL, "F_ADD_SEALS"),
            libc::F_ADD_SEALS as i64,
            "F_ADD_SEALS"
        );
        assert_eq!(
            value(FCNTL, "F_GET_SEALS"),
            libc::F_GET_SEALS as i64,
            "F_GET_SEALS"
        );
        assert_eq!(
            value(FCNTL, "F_SEAL_SEAL"),
            libc::F_SEAL_SEAL as i64,
            "F_SEAL_SEAL"
        );
        assert_eq!(
            value(FCNTL, "F_SEAL_SHRINK"),
            libc::F_SEAL_SHRINK as i64,
            "F_SEAL_SHRINK"
        );
        assert_eq!(
            value(FCNTL, "F_SEAL_GROW"),
            libc::F_SEAL_GROW as i64,
            "F_SEAL_GROW"
        );
        assert_eq!(
            value(FCNTL, "F_SEAL_WRITE"),
            libc::F_SEAL_WRITE as i64,
            "F_SEAL_WRITE"
        );
        assert_eq!(
            value(FCNTL, "F_SEAL_FUTURE_WRITE"),
            libc::F_SEAL_FUTURE_WRITE as i64,
            "F_SEAL_FUTURE_WRITE"
        );
        assert_eq!(
            value(RESOURCE, "RLIMIT_CPU"),
            libc::RLIMIT_CPU as i64,
            "RLIMIT_CPU"
        );
        assert_eq!(
            value(RESOURCE, "RLIMIT_FSIZE"),
            libc::RLIMIT_FSIZE as i64,
            "RLIMIT_FSIZE"
        );
        assert_eq!(
            value(RESOURCE, "RLIMIT_DATA"),
            libc::RLIMIT_DATA as i64,
            "RLIMIT_DATA"
        );
        assert_eq!(
            value(RESOURCE, "RLIMIT_STACK"),
            libc::RLIMIT_STACK as i64,
            "RLIMIT_STACK"
        );
        assert_eq!(
            value(RESOURCE, "RLIMIT_CORE"),
            libc::RLIMIT_CORE as i64,
            "RLIMIT_CORE"
        );
        assert_eq!(
            value(RESOURCE, "RLIMIT_NOFILE"),
            libc::RLIMIT_NOFILE as i64,
            "RLIMIT_NOFILE"
        );
        assert_eq!(
            value(RESOURCE, "RLIMIT_AS"),
            libc::RLIMIT_AS as i64,
            "RLIMIT_AS"
        );
        assert_eq!(
            value(RESOURCE, "RLIMIT_RSS"),
            libc::RLIMIT_RSS as i64,
            "RLIMIT_RSS"
        );
        assert_eq!(
            value(RESOURCE, "RLIMIT_NPROC"),
            libc::RLIMIT_NPROC as i64,
            "RLIMIT_NPROC"
        );
        assert_eq!(
            value(RESOURCE, "RLIMIT_MEMLOCK"),
            libc::RLIMIT_MEMLOCK as i64,
            "RLIMIT_MEMLOCK"
        );
        assert_eq!(
            value(RESOURCE, "RLIMIT_MSGQUEUE"),
            libc::RLIMIT_MSGQUEUE as i64,
            "RLIMIT_MSGQUEUE"
        );
        assert_eq!(
            value(RESOURCE, "RLIMIT_NICE"),
            libc::RLIMIT_NICE as i64,
            "RLIMIT_NICE"
        );
        assert_eq!(
            value(RESOURCE, "RLIMIT_RTPRIO"),
            libc::RLIMIT_RTPRIO as i64,
            "RLIMIT_RTPRIO"
        );
        assert_eq!(
            value(RESOURCE, "RLIMIT_RTTIME"),
            libc::RLIMIT_RTTIME as i64,
            "RLIMIT_RTTIME"
        );
        assert_eq!(
            value(RESOURCE, "RLIMIT_SIGPENDING"),
            libc::RLIMIT_SIGPENDING as i64,
            "RLIMIT_SIGPENDING"
        );
        assert_eq!(
            value(RESOURCE, "RUSAGE_SELF"),
            libc::RUSAGE_SELF as i64,
            "RUSAGE_SELF"
        );
        assert_eq!(
            value(RESOURCE, "RUSAGE_CHILDREN"),
            libc::RUSAGE_CHILDREN as i64,
            "RUSAGE_CHILDREN"
        );
        assert_eq!(
            value(RESOURCE, "RUSAGE_THREAD"),
            libc::RUSAGE_THREAD as i64,
            "RUSAGE_THREAD"
        );
    }
}
