"""SlideAgent's prompts: the three knowledge agents, the query classifier, the sub-query writer,
the three level readers and the synthesizer.

The paper's prompts are not public; these are ours. Each ends with the reply's opening left open
(``Summary:``, ``Type:``, ``Answer:``…) and shows one invented example where the reply has a
format, so that a base model (the embedded default) continues it and an instruction-tuned VLM
follows it. The examples share no content with any dataset.
"""

from __future__ import annotations

#: where a reply ends: a one-line reply (type, answer) at the line break, a paragraph or a list
#: (knowledge, descriptions, sub-queries) at the blank line; a base model otherwise goes on
#: writing the next example
END_OF_LINE = ("\n",)
END_OF_BLOCK = ("\n\n",)

GLOBAL = (
    "You are the global agent. Read the first pages of a slide deck and write its global "
    "knowledge: what the deck is about, who made it, its objectives and how its story is "
    "organised. Write 2-4 sentences.\n\n"
)
GLOBAL_OPEN = "\nGlobal knowledge:"

REFINE = (
    "You are the global agent. Below are a draft of a slide deck's global knowledge and the "
    "knowledge of each of its pages. Rewrite the global knowledge so that it covers the whole "
    "deck: its topic, objectives, narrative and the main facts. Write 2-5 sentences.\n\n"
)

PAGE = (
    "You are the page agent. Using the deck's global knowledge and the previous page's "
    "knowledge, write this page's knowledge: its purpose, its main content and facts (names, "
    "numbers, trends) and how it follows from the previous page. Write 1-3 sentences.\n\n"
)
PAGE_OPEN = "\nPage knowledge:"

#: the element agent's example descriptions; a reply that copies one describes nothing
ELEMENT_EXAMPLES = (
    "Title naming the fleet size topic for 2020.",
    "Bar chart of fleet size with values 12, 15 and 19.",
)
ELEMENT = (
    "You are the element agent. The page below was split into layout elements, each with its "
    "kind and its box [x0, y0, x1, y1] in thousandths of the page. For each element write one "
    "short description of its content and role on the page, one line per element, as "
    "'E<number>: <description>'.\n"
    "Example:\n"
    "E1 title [40, 30, 600, 90]: Fleet Size 2020\n"
    "E2 chart [60, 150, 900, 880]: 12 15 19\n"
    "Descriptions:\n"
    f"E1: {ELEMENT_EXAMPLES[0]}\n"
    f"E2: {ELEMENT_EXAMPLES[1]}\n\n"
)
ELEMENT_OPEN = "Descriptions:\nE1:"

CLASSIFY = (
    "Classify the question about a slide deck into one type:\n"
    "global - about the whole deck (its topic, purpose, overall story);\n"
    "factual - a fact on one page (a value, a name, a date);\n"
    "multi-hop - combines facts from several pages or needs a calculation across them;\n"
    "layout - about where things are placed or how elements are arranged on a page;\n"
    "ambiguous - none of these clearly.\n"
    "Example:\nQuestion: What is the main purpose of this presentation?\nType: global\n\n"
)
CLASSIFY_OPEN = "Type:"

SUBQUERIES = (
    "Write up to {count} short search queries, one per line, that find the pages needed to "
    "answer the question: name its key entities (metrics, years, regions, names).\n"
    "Example:\nQuestion: By how much did the fleet grow from 2019 to 2021?\n"
    "Queries:\n1. fleet size 2019\n2. fleet size 2021\n\n"
)
SUBQUERIES_OPEN = "Queries:\n1."

READ_GLOBAL = "Answer the question from the deck's global knowledge. Give a short answer.\n\n"
READ_PAGES = (
    "Answer the question from the retrieved pages and their knowledge. Give a short answer: a "
    "number, a name or a short phrase.\n\n"
)
READ_ELEMENTS = (
    "Answer the question from the retrieved layout elements (kind, page, box in thousandths of "
    "the page, description and text). Give a short answer.\n\n"
)
SYNTHESIZE = (
    "Combine the answers found at the deck, page and element levels into one final answer to "
    "the question. Give only the answer: a number, a name or a short phrase; if the levels do "
    'not contain it, answer "Not answerable".\n\n'
)
#: the synthesizer for a benchmark without unanswerable questions (SlideVQA)
SYNTHESIZE_ALWAYS = (
    "Combine the answers found at the deck, page and element levels into one final answer to "
    "the question. Give only the answer: a number, a name or a short phrase.\n\n"
)
ANSWER_OPEN = "Answer:"
