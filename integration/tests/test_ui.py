"""llama-server's web UI with scatter in its Sampling settings, in a real browser: Debian's Chromium,
headless, driven by Playwright (no browser is downloaded). The patched server serves the UI it
embedded and the real model. In Settings, Sampling: the scatter fields are there, with the
library's presets and the server's values from /props; preset `creative` and strength 0.3 are
set and a chat message is sent: the request the page sent carries exactly those scatter fields,
and the server ran scatter with them (/slots: the slot's last task). Cleared again, the page sends
no scatter field and the server's own values apply; the Custom JSON path (`{"scatter_preset":
"subtle"}`) works too. The model is README's, a chat model: a message gets a reply, not itself
echoed. Screenshots of the settings, scatter fields set, and of the chat are kept in
$LLAMA_SCATTER_TEST_ARTIFACTS (ui-settings.png, ui-chat.png).

usage: test_ui.py BIN_DIR MODEL
"""

import json
import os
import time

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright

from browser import ARTIFACTS, check_settings, in_page, launch, scatter_fields
from tools import DEFAULT_FIELDS, FIELDS, PRESET_FIELDS, PRESETS, Failure, Server, args, check, run_tests

BIN, MODEL = args()
# A server-wide value, which the settings must show as the field's default (synced from /props).
SERVER_RADIUS = 3.0
CHAT = "/v1/chat/completions"




class Page:
    """The UI in a browser page, with every chat request it sends."""

    def __init__(self, browser):
        self.page = browser.new_page(viewport={"width": 1280, "height": 1000})
        self.sent = []
        self.page.on("request", lambda r: self.sent.append(json.loads(r.post_data))
                     if r.method == "POST" and r.url.endswith(CHAT) else None)
        self.page.goto(f"http://127.0.0.1:{server.port}/")

    def open_settings(self, section):
        self.page.get_by_role("button", name="Settings").click()
        self.page.get_by_role("button", name=section).first.click()

    def field(self, label):
        return self.page.locator("div.space-y-2").filter(has=self.page.get_by_text(label, exact=True)).first

    def choose(self, label, option):
        trigger = self.field(label).locator("[data-slot=select-trigger]")
        trigger.scroll_into_view_if_needed()
        trigger.click()
        self.page.get_by_role("option", name=option, exact=True).click()

    def options(self, label):
        """The choices of a select, read from its open list, which is closed again (and gone: the
        next list opened is then the only one)."""
        self.field(label).locator("[data-slot=select-trigger]").click()
        listbox = self.page.get_by_role("listbox")
        listbox.wait_for()
        names = [name.strip() for name in listbox.get_by_role("option").all_inner_texts()]
        self.page.keyboard.press("Escape")
        listbox.wait_for(state="hidden")
        return names

    def save(self):
        self.page.get_by_role("button", name="Save settings").click()
        self.page.get_by_role("button", name="Save settings").wait_for(state="hidden")

    def send(self, text):
        """Sends a chat message; returns the request body the page sent and the slot's settings
        once the server has answered it."""
        before = len(self.sent)
        task = server.last_task()
        self.page.get_by_placeholder("Type a message...").fill(text)
        self.page.keyboard.press("Enter")
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            status, slots = server.request("/slots")
            slot = slots[0] if status == 200 and slots else {}
            if len(self.sent) > before and slot.get("id_task", task) != task and not slot["is_processing"]:
                return self.sent[before], slot["params"]
            self.page.wait_for_timeout(250)
        raise Failure(f"no answer to the chat message {text!r} within 120 s:\n{server.tail()}")








def the_settings_show_scatter(page):
    page.open_settings("Sampling")
    presets = page.options("Scatter preset")
    check(presets == ["None", *PRESETS], f"preset choices: {presets}")
    for name in FIELDS:
        if name == "adaptive":
            choices = page.options("Scatter adaptive")
            check(choices == ["Server's value", "On", "Off"], f"adaptive's choices: {choices}")
            continue
        placeholder = page.page.locator(f"#scatter_{name}").get_attribute("placeholder")
        default = SERVER_RADIUS if name == "radius" else DEFAULT_FIELDS["scatter_" + name]
        check(placeholder == f"Default: {default:g}", f"scatter_{name}: placeholder {placeholder!r}, expected the server's {default:g}")


def a_preset_and_a_strength_reach_the_sampler(page):
    page.choose("Scatter preset", "creative")
    page.page.locator("#scatter_strength").fill("0.3")
    page.page.locator("#max_tokens").fill("8")
    page.field("Scatter preset").evaluate("e => e.scrollIntoView({block: 'start'})")
    page.page.screenshot(path=os.path.join(ARTIFACTS, "ui-settings.png"))
    page.save()
    body, settings = page.send("Say hello")
    check(scatter_fields(body) == {"scatter_preset": "creative", "scatter_strength": 0.3},
          f"the page sent {scatter_fields(body)}")
    check(settings["scatter_enabled"], "the server did not run scatter for the page's request")
    check_settings("creative, strength 0.3", settings, dict(PRESET_FIELDS["creative"], scatter_strength=0.3))


def cleared_settings_send_no_scatter_field(page):
    page.open_settings("Sampling")
    page.choose("Scatter preset", "None")
    page.page.locator("#scatter_strength").fill("")
    page.save()
    body, settings = page.send("Say it again")
    check(scatter_fields(body) == {}, f"cleared settings, and the page sent {scatter_fields(body)}")
    check(not settings["scatter_enabled"], "scatter ran with the settings cleared")
    check_settings("cleared", settings, dict(DEFAULT_FIELDS, scatter_radius=SERVER_RADIUS))


def custom_json_reaches_the_sampler(page):
    page.open_settings("Developer")
    custom = page.page.locator("#customJson")
    custom.fill('{"scatter_preset": "subtle"}')
    custom.blur()
    page.save()
    body, settings = page.send("Once more")
    check(scatter_fields(body) == {"scatter_preset": "subtle"}, f"Custom JSON, and the page sent {scatter_fields(body)}")
    check(settings["scatter_enabled"], "the server did not run scatter for the Custom JSON request")
    check_settings("Custom JSON subtle", settings, PRESET_FIELDS["subtle"])


def the_demo_model_answers_as_a_chat(page):
    """README's server command runs a chat model: a message gets a reply, not the message echoed
    with the chat template's tokens (what a base model without a template answers). The reply is the
    one the page shows."""
    question = "Write one sentence about the sea."
    page.open_settings("Sampling")
    page.page.locator("#max_tokens").fill("48")
    page.save()
    page.send(question)
    shown = "() => [...document.querySelectorAll('.chat-message-assistant .markdown-content')].pop()?.innerText ?? ''"
    page.page.wait_for_function(f"() => /[A-Za-z]/.test(({shown})())", timeout=15_000)
    page.page.screenshot(path=os.path.join(ARTIFACTS, "ui-chat.png"))
    reply = page.page.evaluate(shown)
    check(any(c.isalpha() for c in reply), f"no reply: {reply!r}")
    check(not any(t in reply for t in ("<|im_end|>", "<|im_start|>", "<end_of_turn>")), f"template tokens in the reply: {reply!r}")
    check(question.lower().rstrip(".") not in reply.lower(), f"the reply echoes the message: {reply!r}")


server = Server(BIN, MODEL, ["--scatter-radius", str(SERVER_RADIUS), "--ctx-size", "2048"])
try:
    server.wait_ready()
    with sync_playwright() as playwright:
        browser = launch(playwright)
        page = Page(browser)
        tests = [
            ("the Sampling settings show scatter's presets and the server's values", the_settings_show_scatter),
            ("a preset and a strength set there reach the sampler", a_preset_and_a_strength_reach_the_sampler),
            ("cleared settings send no scatter field", cleared_settings_send_no_scatter_field),
            ("Custom JSON's scatter_preset reaches the sampler", custom_json_reaches_the_sampler),
            ("the demo's model answers a message as a chat", the_demo_model_answers_as_a_chat),
        ]
        run_tests([(name, lambda fn=fn: in_page(fn, page)) for name, fn in tests])
except (Failure, PlaywrightError) as e:
    print(f"FAIL {e}\n{server.tail()}")
    raise SystemExit(1)
finally:
    server.stop()
