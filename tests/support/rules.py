"""A design with rules across arguments (``AtLeastOne``, ``ExactlyOne``, ``When``), shared by
the decoder's and the exports' tests."""

DESIGN = """
from tooldesign.dsl import *

with Service("crm", "Contacts"):
    with Toolset("people", "People"):
        with Tool("add_contact", "Add a contact"):
            with Args():
                Attribute("name", String, "Full name")
                Attribute("contact_method", String, "How to reach them", enum=["phone", "email"])
                Attribute("phone", String, "Phone number")
                Attribute("email", String, "Email address")
                Attribute("id", Int, "An id")
                Attribute("handle", String, "A handle")
                Required("name")
                AtLeastOne("phone", "email")
                ExactlyOne("id", "handle")
                When("contact_method", equals="phone", requires=["phone"], otherwise=["email"])
            Return(String, "The new contact's id")
"""
