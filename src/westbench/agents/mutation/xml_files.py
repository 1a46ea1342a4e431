"""XML files (force fields, serialized systems): unit swaps of each numeric attribute over every element of its name."""

from __future__ import annotations

import re

from westbench.agents.mutation.catalogue import OPERATORS, Mutant
from westbench.agents.mutation.numeric import KCAL_TO_KJ, format_like, scaled

# A numeric attribute as XML writers print it: 1, -0.5, .5 and -.14 (OpenMM's serializer drops the leading zero), 1e-5.
_XML_ATTRIBUTE = re.compile(r'(\s)([\w:.-]+)(\s*=\s*)(["\'])(-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\4')
_XML_TAG = re.compile(r"<([\w:.-]+)(\s[^<>]*?)(/?)>")


def xml_mutants(relative: str, text: str) -> list[Mutant]:
    """Per (element, numeric attribute) of an XML file, over every element of that name: unit swaps (x10, x0.1;
    x4.184 and /4.184 on energies: ``epsilon``, ``k``, ``energy``...).

    >>> xml = '<Atom type="O" charge="-0.68" epsilon="0.71"/>\\n<Atom type="H" charge="0.41" epsilon="0"/>'
    >>> [m.id for m in xml_mutants("ff.xml", xml)][-2:]
    ['unit-x4.184:ff.xml:Atom@epsilon', 'unit-/4.184:ff.xml:Atom@epsilon']
    >>> next(m for m in xml_mutants("ff.xml", xml) if m.operator == "unit-x4.184").changes["ff.xml"].split("\\n")[0]
    '<Atom type="O" charge="-0.68" epsilon="2.97"/>'
    >>> [m.changes["s.xml"] for m in xml_mutants("s.xml", '<Exception q="-.14" sig=".31"/>')][:1]
    ['<Exception q="-1.40" sig=".31"/>']
    """
    pairs = []
    for tag in _XML_TAG.finditer(text):
        for attribute in _XML_ATTRIBUTE.finditer(tag.group(2)):
            pair = (tag.group(1), attribute.group(2))
            if "version" in pair[1].lower():  # a file's provenance, not a number of the model
                continue
            if pair not in pairs:
                pairs.append(pair)
    mutants = []
    for element, name in pairs:
        energy = re.fullmatch(r"epsilon|k\d*|energy|.*energ.*|barrier|height", name, re.IGNORECASE)
        operators = [("unit-x10", scaled(10.0)), ("unit-x0.1", scaled(0.1))]
        if energy:
            operators += [("unit-x4.184", scaled(KCAL_TO_KJ)), ("unit-/4.184", scaled(1 / KCAL_TO_KJ))]
        for operator, function in operators:

            def edit_tag(tag, function=function, element=element, name=name):
                if tag.group(1) != element:
                    return tag.group(0)

                def edit(attribute):
                    if attribute.group(2) != name:
                        return attribute.group(0)
                    value = float(attribute.group(5))
                    new = format_like(function(value), attribute.group(5)) if value else attribute.group(5)
                    space, _, equals, quote, _ = attribute.groups()
                    return f"{space}{name}{equals}{quote}{new}{quote}"

                return f"<{element}{_XML_ATTRIBUTE.sub(edit, tag.group(2))}{tag.group(3)}>"

            mutated = _XML_TAG.sub(edit_tag, text)
            if mutated != text:
                mutants.append(
                    Mutant(
                        id=f"{operator}:{relative}:{element}@{name}",
                        operator=operator,
                        file=relative,
                        description=f"{OPERATORS[operator]}: {relative} <{element} {name}=...>",
                        level="output",
                        changes={relative: mutated},
                    )
                )
    return mutants
