//! apy's library modules written in apy itself: those CPython writes in Python
//! (`Lib/contextlib.py`, …), kept readable here as `*.apy` files so a learner can open
//! them, embedded in the binary and compiled on their first `import` only, so start-up does
//! not grow. [`install`] registers them with a VM (`Vm::register_library_module`); the
//! import system does the rest. Tracebacks show a library frame as `NAME.py`, the file
//! CPython's frame would name.
//!
//! Native modules (those CPython writes in C, or that speed needs) live in `builtins/`;
//! asyncio has its own folder.

use crate::vm::Vm;

/// The library modules: name, the file tracebacks show, the source.
const MODULES: &[(&str, &str, &str)] = &[
    (
        "__future__",
        "__future__.py",
        include_str!("__future__.apy"),
    ),
    ("abc", "abc.py", include_str!("abc.apy")),
    ("ast", "ast.py", include_str!("ast.apy")),
    ("_ast_unparse", "ast.py", include_str!("ast_unparse.apy")),
    ("_sysinfo", "_sysinfo.py", include_str!("_sysinfo.apy")),
    (
        "_collections_abc",
        "_collections_abc.py",
        include_str!("_collections_abc.apy"),
    ),
    ("bisect", "bisect.py", include_str!("bisect.apy")),
    ("_iobase", "_iobase.py", include_str!("_iobase.apy")),
    (
        "collections.abc",
        "collections/abc.py",
        include_str!("collections_abc.apy"),
    ),
    (
        "collections",
        "collections/__init__.py",
        include_str!("collections.apy"),
    ),
    (
        "_collections_user",
        "_collections_user.py",
        include_str!("collections_user.apy"),
    ),
    ("copy", "copy.py", include_str!("copy.apy")),
    (
        "concurrent",
        "concurrent/__init__.py",
        include_str!("concurrent.apy"),
    ),
    (
        "concurrent.futures",
        "concurrent/futures/__init__.py",
        include_str!("concurrent_futures.apy"),
    ),
    (
        "concurrent.futures._base",
        "concurrent/futures/_base.py",
        include_str!("concurrent_futures_base.apy"),
    ),
    (
        "concurrent.futures.process",
        "concurrent/futures/process.py",
        include_str!("concurrent_futures_process.apy"),
    ),
    (
        "concurrent.futures.thread",
        "concurrent/futures/thread.py",
        include_str!("concurrent_futures_thread.apy"),
    ),
    (
        "dataclasses",
        "dataclasses.py",
        include_str!("dataclasses.apy"),
    ),
    (
        "contextlib",
        "contextlib.py",
        include_str!("contextlib.apy"),
    ),
    ("dis", "dis.py", include_str!("dis.apy")),
    ("enum", "enum.py", include_str!("enum.apy")),
    ("functools", "functools.py", include_str!("functools.apy")),
    ("heapq", "heapq.py", include_str!("heapq.apy")),
    ("colorsys", "colorsys.py", include_str!("colorsys.apy")),
    ("copyreg", "copyreg.py", include_str!("copyreg.apy")),
    ("pickle", "pickle.py", include_str!("pickle.apy")),
    ("_pickle", "_pickle.py", include_str!("_pickle.apy")),
    (
        "_compat_pickle",
        "_compat_pickle.py",
        include_str!("_compat_pickle.apy"),
    ),
    ("_codecs", "_codecs.py", include_str!("_codecs.apy")),
    ("getpass", "getpass.py", include_str!("getpass.apy")),
    ("graphlib", "graphlib.py", include_str!("graphlib.apy")),
    (
        "importlib",
        "importlib/__init__.py",
        include_str!("importlib.apy"),
    ),
    (
        "importlib.machinery",
        "importlib/machinery.py",
        include_str!("importlib_machinery.apy"),
    ),
    (
        "importlib.util",
        "importlib/util.py",
        include_str!("importlib_util.apy"),
    ),
    ("inspect", "inspect.py", include_str!("inspect.apy")),
    ("linecache", "linecache.py", include_str!("linecache.apy")),
    ("locale", "locale.py", include_str!("locale.apy")),
    ("platform", "platform.py", include_str!("platform.apy")),
    ("reprlib", "reprlib.py", include_str!("reprlib.apy")),
    ("sched", "sched.py", include_str!("sched.apy")),
    ("stat", "stat.py", include_str!("stat.apy")),
    ("keyword", "keyword.py", include_str!("keyword.apy")),
    ("operator", "operator.py", include_str!("operator.apy")),
    (
        "statistics",
        "statistics.py",
        include_str!("statistics.apy"),
    ),
    ("queue", "queue.py", include_str!("queue.apy")),
    ("signal", "signal.py", include_str!("signal.apy")),
    ("string", "string.py", include_str!("string.apy")),
    ("pprint", "pprint.py", include_str!("pprint.apy")),
    ("pydoc", "pydoc.py", include_str!("pydoc.apy")),
    ("base64", "base64.py", include_str!("base64.apy")),
    ("uuid", "uuid.py", include_str!("uuid.apy")),
    ("textwrap", "textwrap.py", include_str!("textwrap.apy")),
    ("timeit", "timeit.py", include_str!("timeit.apy")),
    ("threading", "threading.py", include_str!("threading.apy")),
    ("typing", "typing.py", include_str!("typing.apy")),
    ("time", "time.py", include_str!("time.apy")),
    ("os", "os.py", include_str!("os.apy")),
    ("shlex", "shlex.py", include_str!("shlex.apy")),
    ("getopt", "getopt.py", include_str!("getopt.apy")),
    ("fnmatch", "fnmatch.py", include_str!("fnmatch.apy")),
    ("secrets", "secrets.py", include_str!("secrets.apy")),
    ("hmac", "hmac.py", include_str!("hmac.apy")),
    ("codecs", "codecs.py", include_str!("codecs.apy")),
    (
        "pathlib",
        "pathlib/__init__.py",
        include_str!("pathlib.apy"),
    ),
    ("shutil", "shutil.py", include_str!("shutil.apy")),
    ("tempfile", "tempfile.py", include_str!("tempfile.apy")),
    ("urllib", "urllib/__init__.py", include_str!("urllib.apy")),
    (
        "urllib.parse",
        "urllib/parse.py",
        include_str!("urllib_parse.apy"),
    ),
    (
        "urllib.error",
        "urllib/error.py",
        include_str!("urllib_error.apy"),
    ),
    (
        "urllib.response",
        "urllib/response.py",
        include_str!("urllib_response.apy"),
    ),
    (
        "urllib.request",
        "urllib/request.py",
        include_str!("urllib_request.apy"),
    ),
    ("http", "http/__init__.py", include_str!("http.apy")),
    (
        "multiprocessing",
        "multiprocessing/__init__.py",
        include_str!("multiprocessing.apy"),
    ),
    (
        "multiprocessing.connection",
        "multiprocessing/connection.py",
        include_str!("multiprocessing_connection.apy"),
    ),
    (
        "multiprocessing.context",
        "multiprocessing/context.py",
        include_str!("multiprocessing_context.apy"),
    ),
    (
        "multiprocessing.pool",
        "multiprocessing/pool.py",
        include_str!("multiprocessing_pool.apy"),
    ),
    (
        "multiprocessing.process",
        "multiprocessing/process.py",
        include_str!("multiprocessing_process.apy"),
    ),
    (
        "multiprocessing.queues",
        "multiprocessing/queues.py",
        include_str!("multiprocessing_queues.apy"),
    ),
    (
        "multiprocessing.synchronize",
        "multiprocessing/synchronize.py",
        include_str!("multiprocessing_synchronize.apy"),
    ),
    (
        "http.client",
        "http/client.py",
        include_str!("http_client.apy"),
    ),
    (
        "http.server",
        "http/server.py",
        include_str!("http_server.apy"),
    ),
    (
        "socketserver",
        "socketserver.py",
        include_str!("socketserver.apy"),
    ),
    ("_socketfile", "socket.py", include_str!("socketfile.apy")),
    ("_strptime", "_strptime.py", include_str!("_strptime.apy")),
    ("datetime", "datetime.py", include_str!("datetime.apy")),
    (
        "logging",
        "logging/__init__.py",
        include_str!("logging.apy"),
    ),
    (
        "logging.handlers",
        "logging/handlers.py",
        include_str!("logging_handlers.apy"),
    ),
    ("traceback", "traceback.py", include_str!("traceback.apy")),
    ("warnings", "warnings.py", include_str!("warnings.apy")),
    ("json", "json/__init__.py", include_str!("json.apy")),
    ("argparse", "argparse.py", include_str!("argparse.apy")),
    (
        "subprocess",
        "subprocess.py",
        include_str!("subprocess.apy"),
    ),
    ("re", "re/__init__.py", include_str!("re.apy")),
    ("weakref", "weakref.py", include_str!("weakref.apy")),
    (
        "tracemalloc",
        "tracemalloc.py",
        include_str!("tracemalloc.apy"),
    ),
    ("csv", "csv.py", include_str!("csv.apy")),
    (
        "configparser",
        "configparser.py",
        include_str!("configparser.apy"),
    ),
    (
        "tomllib",
        "tomllib/__init__.py",
        include_str!("tomllib.apy"),
    ),
    ("numbers", "numbers.py", include_str!("numbers.apy")),
    ("fractions", "fractions.py", include_str!("fractions.apy")),
    ("decimal", "decimal.py", include_str!("decimal.apy")),
    ("glob", "glob.py", include_str!("glob.apy")),
    ("html", "html/__init__.py", include_str!("html.apy")),
    (
        "html.entities",
        "html/entities.py",
        include_str!("html_entities.apy"),
    ),
    (
        "html.parser",
        "html/parser.py",
        include_str!("html_parser.apy"),
    ),
    (
        "_markupbase",
        "_markupbase.py",
        include_str!("_markupbase.apy"),
    ),
    ("ipaddress", "ipaddress.py", include_str!("ipaddress.apy")),
    ("calendar", "calendar.py", include_str!("calendar.apy")),
    ("difflib", "difflib.py", include_str!("difflib.apy")),
    ("doctest", "doctest.py", include_str!("doctest.apy")),
    (
        "unittest",
        "unittest/__init__.py",
        include_str!("unittest.apy"),
    ),
    (
        "unittest.util",
        "unittest/util.py",
        include_str!("unittest_util.apy"),
    ),
    (
        "unittest.result",
        "unittest/result.py",
        include_str!("unittest_result.apy"),
    ),
    (
        "unittest.case",
        "unittest/case.py",
        include_str!("unittest_case.apy"),
    ),
    (
        "unittest.suite",
        "unittest/suite.py",
        include_str!("unittest_suite.apy"),
    ),
    (
        "unittest.loader",
        "unittest/loader.py",
        include_str!("unittest_loader.apy"),
    ),
    (
        "unittest.runner",
        "unittest/runner.py",
        include_str!("unittest_runner.apy"),
    ),
    (
        "unittest.main",
        "unittest/main.py",
        include_str!("unittest_main.apy"),
    ),
    (
        "unittest.async_case",
        "unittest/async_case.py",
        include_str!("unittest_async_case.apy"),
    ),
    (
        "unittest.signals",
        "unittest/signals.py",
        include_str!("unittest_signals.apy"),
    ),
    (
        "unittest._log",
        "unittest/_log.py",
        include_str!("unittest__log.apy"),
    ),
    (
        "unittest.mock",
        "unittest/mock.py",
        include_str!("unittest_mock.apy"),
    ),
];

/// Makes every library module importable in `vm`.
pub fn install(vm: &mut Vm) {
    for &(name, file, text) in MODULES {
        vm.register_library_module(name, file, text);
    }
}
