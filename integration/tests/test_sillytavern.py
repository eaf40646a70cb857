"""SillyTavern with the llama-scatter extension, in a real browser (Debian's Chromium, headless,
driven by Playwright): SillyTavern 1.19.0 from its npm package (installed from the lock file in
tests/sillytavern/), started headless, the extension installed the documented way (its folder
copied into the user's extensions folder), connected to the patched llama-server, started with
--api-key (the key set in SillyTavern's connection), through a proxy that records every request
reaching llama-server. Checked: the extension's panel shows the library's presets and fields with the
server's values (its /props read with the key); `creative` and a strength set there reach
llama-server as fields (with scatter placed before temperature) and the server runs them (/slots);
the values live with the Text Completion preset; a value the server would refuse is named and not
sent; a cleared panel sends no scatter field; another API type (vLLM's, at the same server's
OpenAI-compatible endpoint) gets none; with LLAMA_SCATTER_STOCK_SERVER (the folder of llama.cpp's
own llama-server, without scatter: scripts/check-sillytavern-stock.sh builds it, a release check),
that server gets none either and the panel says it has no scatter. A screenshot of the panel is kept
in $LLAMA_SCATTER_TEST_ARTIFACTS (sillytavern-panel.png).

usage: test_sillytavern.py BIN_DIR SILLYTAVERN_DIR MODEL
"""

import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright

from browser import ARTIFACTS, check_settings, in_page, launch, scatter_fields
from tools import (DEFAULT_FIELDS, FIELDS, PRESET_FIELDS, PRESETS, Failure, Server, check, free_port, run_tests,
                   stop_process)

if len(sys.argv) != 4:
    sys.exit(f"usage: {sys.argv[0]} BIN_DIR SILLYTAVERN_DIR MODEL")
BIN, SILLYTAVERN, MODEL = sys.argv[1:]
STOCK_BIN = os.environ.get("LLAMA_SCATTER_STOCK_SERVER")
# The patched server asks for a key, which SillyTavern's connection holds.
API_KEY = "scatter-test-key"
EXTENSION = os.path.join(os.path.dirname(__file__), "..", "sillytavern", "llama-scatter")
# A server-wide value, which the panel must show as the field's placeholder (read from /props).
SERVER_RADIUS = 3.0




class Recorder(http.server.ThreadingHTTPServer):
    """A proxy in front of llama-server that keeps every JSON body POSTed through it: what reached
    llama-server, whoever sent it."""

    def __init__(self, target):
        self.target = target
        self.bodies = []
        self.answers = []
        super().__init__(("127.0.0.1", 0), Forward)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server_address[1]}"


class Forward(http.server.BaseHTTPRequestHandler):
    def forward(self):
        data = self.rfile.read(int(self.headers.get("Content-Length") or 0)) or None
        if self.command == "POST" and data:
            try:
                self.server.bodies.append((self.path, json.loads(data)))
            except ValueError:
                pass
        headers = {k: v for k, v in self.headers.items()
                   if k.lower() in ("content-type", "accept", "origin", "authorization")}
        request = urllib.request.Request(self.server.target + self.path, data=data, method=self.command, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=300) as resp:
                status, body, answer = resp.status, resp.read(), resp.headers
        except urllib.error.HTTPError as e:
            status, body, answer = e.code, e.read(), e.headers
        self.server.answers.append((self.path, status, body[:300]))
        self.send_response(status)
        for name in ("Content-Type", "Access-Control-Allow-Origin"):
            if answer.get(name):
                self.send_header(name, answer[name])
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = forward

    def log_message(self, *args):
        pass


class SillyTavern:
    """SillyTavern at a free port, its data in a fresh folder, with the extension installed as
    README says: its folder copied into the user's extensions folder."""

    def __init__(self):
        self.data = tempfile.mkdtemp()
        extensions = os.path.join(self.data, "default-user", "extensions")
        os.makedirs(extensions)
        shutil.copytree(EXTENSION, os.path.join(extensions, "llama-scatter"))
        self.port = free_port()
        self.log = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(["node", "server.js", "--dataRoot", self.data, "--port", str(self.port),
                                      "--listen", "false", "--browserLaunchEnabled", "false"],
                                     cwd=SILLYTAVERN, stdout=self.log, stderr=subprocess.STDOUT)

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}/"

    def wait_ready(self):
        # The first start builds its front end (webpack): about a minute here.
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise Failure(f"SillyTavern exited with {self.proc.returncode}:\n{self.tail()}")
            try:
                with urllib.request.urlopen(self.url, timeout=5) as resp:
                    if resp.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError):
                pass
            time.sleep(1)
        raise Failure(f"SillyTavern not ready after 300 s:\n{self.tail()}")

    def tail(self):
        self.log.seek(0)
        return self.log.read()[-3000:]

    def stop(self):
        stop_process(self.proc)
        shutil.rmtree(self.data, ignore_errors=True)


class Page:
    """SillyTavern in a browser page, as a user drives it."""

    def __init__(self, browser):
        self.page = browser.new_page(viewport={"width": 1280, "height": 1100})
        self.page.goto(tavern.url)
        self.page.wait_for_selector("#llama_scatter_scatter_preset", state="attached", timeout=120_000)
        # The first visit asks for a persona name: the default one.
        self.page.locator("dialog[open]").get_by_text("Save", exact=True).click()
        self.page.locator("dialog[open]").wait_for(state="detached")

    def connect(self, api_type, url_input, proxy, api_key=None):
        """API Connections: Text Completion, `api_type`, the URL of `proxy` (a Recorder), the API key if
        any, Connect."""
        self.page.locator("#API-status-top").click()
        self.page.select_option("#main_api", "textgenerationwebui")
        self.page.select_option("#textgen_type", api_type)
        self.page.fill(url_input, proxy.url)
        if api_key:
            self.page.fill(f"#api_key_{api_type}", api_key)
        self.page.locator("#api_button_textgenerationwebui").click()
        self.page.wait_for_function("() => SillyTavern.getContext().onlineStatus !== 'no_connection'", timeout=60_000)
        self.page.locator("#API-status-top").click()

    def open_panel(self):
        self.page.locator("#extensions-settings-button").click()
        content = self.page.locator(".llama-scatter-settings .inline-drawer-content")
        if not content.is_visible():
            self.page.locator(".llama-scatter-settings .inline-drawer-toggle").click()
        content.wait_for()

    def close_panel(self):
        self.page.locator("#extensions-settings-button").click()

    def field(self, name):
        return self.page.locator(f"#llama_scatter_scatter_{name}")

    def set_values(self, preset, strength):
        self.field("preset").select_option(preset)
        self.field("strength").fill(strength)
        self.field("strength").press("Tab")

    def stored(self):
        return self.page.evaluate("() => SillyTavern.getContext().getPresetManager('textgenerationwebui')"
                                  ".readPresetExtensionField({path: 'llama_scatter'})") or {}

    def send(self, text, server, recorder):
        """Sends a chat message (in a temporary chat); returns the body that reached `server` through
        `recorder` and the slot's settings once the server has answered it."""
        if self.page.get_by_text("Temporary Chat").is_visible():
            self.page.get_by_text("Temporary Chat").click()
        before = len(recorder.bodies)
        task = server.last_task()
        self.page.fill("#send_textarea", text)
        self.page.locator("#send_textarea").press("Enter")
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            status, slots = server.request("/slots")
            slot = slots[0] if status == 200 and slots else {}
            bodies = [body for _, body in recorder.bodies[before:] if "prompt" in body]
            if bodies and slot.get("id_task", task) != task and not slot["is_processing"]:
                return bodies[-1], slot["params"]
            self.page.wait_for_timeout(250)
        raise Failure(f"no answer to the chat message {text!r} within 180 s: {recorder.answers[-3:]}\n{server.tail()}")






def the_panel_shows_the_library_and_the_server(page):
    page.connect("llamacpp", "#llamacpp_api_url_text", recorder, API_KEY)
    page.open_panel()
    presets = page.field("preset").locator("option").evaluate_all("options => options.map(o => o.value)")
    check(presets == ["", *PRESETS], f"the panel's presets: {presets}")
    for name in FIELDS:
        check(page.field(name).count() == 1, f"the panel has no field {name}")
    page.page.wait_for_function("() => document.querySelector('#llama_scatter_server').textContent.includes('by default')")
    line = page.page.locator("#llama_scatter_server").inner_text()
    check("scatter off by default" in line, f"the server line: {line!r}")
    radius = page.field("radius").get_attribute("placeholder")
    check(radius == f"{SERVER_RADIUS:g}", f"radius's placeholder {radius!r}, expected the server's {SERVER_RADIUS:g}")


def a_preset_and_a_strength_reach_the_sampler(page):
    page.set_values("creative", "0.3")
    page.page.locator(".llama-scatter-settings").scroll_into_view_if_needed()
    page.page.locator(".llama-scatter-settings").screenshot(path=os.path.join(ARTIFACTS, "sillytavern-panel.png"))
    check(page.stored() == {"scatter_preset": "creative", "scatter_strength": 0.3}, f"stored: {page.stored()}")
    page.close_panel()
    body, settings = page.send("Tell me about the sea.", server, recorder)
    check(scatter_fields(body) == {"scatter_preset": "creative", "scatter_strength": 0.3},
          f"llama-server got {scatter_fields(body)}")
    samplers = body.get("samplers", [])
    check("scatter" in samplers and "temperature" in samplers and
          samplers.index("scatter") + 1 == samplers.index("temperature"), f"samplers: {samplers}")
    check(settings["scatter_enabled"], "the server did not run scatter for SillyTavern's request")
    check_settings("creative, strength 0.3", settings, dict(PRESET_FIELDS["creative"], scatter_strength=0.3))


def the_values_live_with_the_text_completion_preset(page):
    page.page.locator("#leftNavDrawerIcon").click()
    select = page.page.locator("#settings_preset_textgenerationwebui")
    first = select.input_value()
    other = next(v for v in select.locator("option").evaluate_all("o => o.map(x => x.value)") if v != first)
    select.select_option(other)
    page.page.wait_for_function("() => document.querySelector('#llama_scatter_scatter_preset').value === ''")
    check(page.stored() == {}, f"preset {other} has values of its own: {page.stored()}")
    select.select_option(first)
    page.page.wait_for_function("() => document.querySelector('#llama_scatter_scatter_preset').value === 'creative'")
    check(page.field("strength").input_value() == "0.3", f"back on {first}: strength {page.field('strength').input_value()!r}")
    page.page.locator("#leftNavDrawerIcon").click()


def a_refused_value_is_named_and_not_stored(page):
    page.open_panel()
    page.field("strength").fill("2")
    page.field("strength").press("Tab")
    message = page.page.locator("#llama_scatter_message").inner_text()
    check("strength: expected a number from 0 to 1" in message, f"the panel's message: {message!r}")
    check(page.stored() == {"scatter_preset": "creative"}, f"stored: {page.stored()}")


def a_cleared_panel_sends_no_scatter_field(page):
    page.page.locator("#llama_scatter_clear").click()
    page.page.wait_for_function("() => document.querySelector('#llama_scatter_scatter_preset').value === ''")
    check(page.stored() == {}, f"stored after Clear: {page.stored()}")
    page.close_panel()
    body, settings = page.send("Tell me more.", server, recorder)
    check(scatter_fields(body) == {} and "scatter" not in body.get("samplers", []),
          f"a cleared panel, and llama-server got {scatter_fields(body)}, samplers {body.get('samplers')}")
    check(not settings["scatter_enabled"], "scatter ran with the panel cleared")
    check_settings("cleared", settings, dict(DEFAULT_FIELDS, scatter_radius=SERVER_RADIUS))


def another_api_type_gets_no_scatter_field(page):
    page.open_panel()
    page.set_values("creative", "0.3")
    page.close_panel()
    page.connect("vllm", "#vllm_api_url_text", recorder, API_KEY)
    body, settings = page.send("And again.", server, recorder)
    check(scatter_fields(body) == {}, f"text-generation-webui's request carried {scatter_fields(body)}")
    check(not settings["scatter_enabled"], "scatter ran for text-generation-webui's request")


def a_server_without_scatter_gets_no_scatter_field(page):
    """llama.cpp's own server ignores scatter's fields and sampler name: the extension sends neither,
    and its panel says why, the values set in it kept for a server that has scatter."""
    page.connect("llamacpp", "#llamacpp_api_url_text", stock_recorder)
    page.open_panel()
    line = page.page.locator("#llama_scatter_server")
    deadline = time.monotonic() + 30
    while "has no scatter" not in line.inner_text() and time.monotonic() < deadline:
        page.page.wait_for_timeout(250)
    check("has no scatter" in line.inner_text() and "scatter is not sent" in line.inner_text(),
          f"the server line: {line.inner_text()!r}")
    check(page.stored() == {"scatter_preset": "creative", "scatter_strength": 0.3}, f"stored: {page.stored()}")
    page.close_panel()
    body, _ = page.send("One more thing.", stock, stock_recorder)
    check(scatter_fields(body) == {} and "scatter" not in body.get("samplers", []),
          f"the stock server got {scatter_fields(body)}, samplers {body.get('samplers')}")




server = Server(BIN, MODEL, ["--scatter-radius", str(SERVER_RADIUS), "--ctx-size", "2048"], api_key=API_KEY)
# Its own libraries: CTest's library path names the patched build's, whose llama-server-impl has scatter.
stock = Server(STOCK_BIN, MODEL, ["--ctx-size", "2048"], env={"LD_LIBRARY_PATH": STOCK_BIN}) if STOCK_BIN else None
tavern = SillyTavern()
recorder = Recorder(f"http://127.0.0.1:{server.port}")
stock_recorder = Recorder(f"http://127.0.0.1:{stock.port}") if stock else None
try:
    server.wait_ready()
    tests = [
        ("the panel shows the library's presets and fields and the server's values",
         the_panel_shows_the_library_and_the_server),
        ("a preset and a strength set in the panel reach the sampler", a_preset_and_a_strength_reach_the_sampler),
        ("the values live with the Text Completion preset", the_values_live_with_the_text_completion_preset),
        ("a value the server would refuse is named and not stored", a_refused_value_is_named_and_not_stored),
        ("a cleared panel sends no scatter field", a_cleared_panel_sends_no_scatter_field),
        ("another API type gets no scatter field", another_api_type_gets_no_scatter_field),
    ]
    if stock:
        stock.wait_ready()
        status, props = stock.request("/props")
        check(status == 200 and "scatter_enabled" not in props["default_generation_settings"]["params"],
              f"{STOCK_BIN}/llama-server is not a server without scatter: /props -> {status}")
        tests.append(("llama.cpp's own llama-server gets no scatter field", a_server_without_scatter_gets_no_scatter_field))
    else:
        print("note: llama.cpp's own llama-server is not tried: LLAMA_SCATTER_STOCK_SERVER is not set "
              "(scripts/check-sillytavern-stock.sh, a release check)", flush=True)
    tavern.wait_ready()
    with sync_playwright() as playwright:
        browser = launch(playwright)
        page = Page(browser)
        run_tests([(name, lambda fn=fn: in_page(fn, page)) for name, fn in tests])
except (Failure, PlaywrightError) as e:
    print(f"FAIL {e}\n{server.tail()}\n{stock.tail() if stock else ''}\n{tavern.tail()}")
    raise SystemExit(1)
finally:
    for proxy in (recorder, stock_recorder):
        if proxy:
            proxy.shutdown()
    tavern.stop()
    for process in (server, stock):
        if process:
            process.stop()
