"""Locale data and formats of the synthetic documents (``training.synth``): printed labels,
month names, units, item catalogues, payment terms, countries with their tax rates, currencies
and number formats; money rounding, number, date and Chinese capital-amount formatting.

Labels are what real documents in each language print (one variant is chosen per document).

This module owns the locale value types a ``Plan`` holds (``Country``, ``NumFmt``, ``Cur``) and
imports none of the other synth modules: the plan types (``Plan``, ``Party``, ``Item``,
``Totals``) and ``line_tax`` belong to ``training.synth_types``, which builds on these.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from functools import cache

D = Decimal


ZERO = D(0)


def _variants(table: dict[str, dict[str, str]]) -> dict[str, dict[str, tuple[str, ...]]]:
    """``{lang: {key: "a | b"}}`` as ``{lang: {key: ("a", "b")}}``: the variants of each text, in order."""
    return {lang: {key: tuple(text.split(" | ")) for key, text in texts.items()} for lang, texts in table.items()}


def _by_language(rows: tuple[tuple, ...]) -> dict[str, tuple[tuple, ...]]:
    """``(lang, *row)`` rows as ``{lang: (row, ...)}``, each language's rows in their order."""
    out: dict[str, list[tuple]] = {}
    for lang, *row in rows:
        out.setdefault(lang, []).append(tuple(row))
    return {lang: tuple(found) for lang, found in out.items()}


_MONTHS = {
    "en": "January February March April May June July August September October November December",
    "de": "Januar Februar März April Mai Juni Juli August September Oktober November Dezember",
    "fr": "janvier février mars avril mai juin juillet août septembre octobre novembre décembre",
    "nl": "januari februari maart april mei juni juli augustus september oktober november december",
    "es": "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre",
    "it": "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre",
    "th": "มกราคม กุมภาพันธ์ มีนาคม เมษายน พฤษภาคม มิถุนายน กรกฎาคม สิงหาคม กันยายน ตุลาคม พฤศจิกายน ธันวาคม",
}


_TH_MONTHS_SHORT = "ม.ค. ก.พ. มี.ค. เม.ย. พ.ค. มิ.ย. ก.ค. ส.ค. ก.ย. ต.ค. พ.ย. ธ.ค.".split()


# Date styles a language prints (weights by repetition).
DATE_STYLES = {
    "en": ("dmy/", "dmy/", "mdy/", "long_en", "mon_d_y", "iso", "d-mon-y"),
    "de": ("dmy.", "dmy.", "dmy.", "long", "iso"),
    "fr": ("dmy/", "dmy/", "long", "dmy."),
    "nl": ("dmy-", "dmy-", "long", "dmy/"),
    "es": ("dmy/", "dmy/", "long_de", "dmy-"),
    "it": ("dmy/", "dmy/", "long", "dmy."),
    "zh": ("cjk", "cjk", "iso"),
    "th": ("dmy/be", "dmy/be", "long_be", "short_be", "dmy/"),
    "my": ("dmy/", "dmy/", "dmy-", "dmy/yy", "d-mon-y"),
}


# Labels: each key maps to the variants a document may print, separated by " | " (one is chosen
# per document).
LABELS: dict[str, dict[str, tuple[str, ...]]] = _variants(
    {
        "en": {
            "invoice": "INVOICE | Invoice | TAX INVOICE | Tax Invoice",
            "receipt": "RECEIPT | Receipt | SALES RECEIPT",
            "credit_note": "CREDIT NOTE | Credit Note | Credit Memo",
            "number": "Invoice No. | Invoice # | Invoice Number | Invoice no",
            "credit_number": "Credit Note No. | Credit Note # | Document No.",
            "receipt_number": "Receipt No. | Receipt # | Bill No.",
            "date": "Invoice Date | Date | Date of issue | Issue date",
            "due": "Due Date | Payment due | Due",
            "customer_no": "Customer No. | Account No. | Customer ID",
            "order": "PO Number | Order No. | Your ref.",
            "delivery": "Delivery date | Ship date",
            "credit_ref": "Original invoice | Relates to invoice | Ref. invoice",
            "bill_to": "Bill To | Invoice to | Customer | BILL TO",
            "tax_id": "VAT No. | VAT Reg. No. | Tax ID",
            "pos": "# | No. | Item",
            "sku": "SKU | Item code | Part No.",
            "desc": "Description | Item | Item description | Details",
            "qty": "Qty | Quantity | QTY",
            "unit": "Unit | UoM",
            "price": "Unit Price | Rate | Price | Unit cost",
            "line_disc": "Disc. | Discount",
            "rate": "VAT | Tax | VAT %",
            "amount": "Amount | Total | Line Total",
            "subtotal": "Subtotal | Sub-total | Total excl. VAT",
            "net_total": "Net total | Total excl. VAT | Net amount",
            "discount": "Discount | Less discount",
            "shipping": "Shipping | Delivery | Freight | Shipping & handling",
            "service": "Service charge | Service fee",
            "tax": "VAT | Tax | VAT",
            "sales_tax": "Sales Tax | Tax",
            "total": "Total | Invoice Total | Total incl. VAT | Grand Total | TOTAL",
            "credit_total": "Total credit | Credit total | Total",
            "deposit": "Deposit received | Less: payment received | Amount paid | Deposit",
            "paid": "Paid | Amount paid | Payment received",
            "due_amount": "Amount Due | Balance Due | Total Due | Amount due",
            "refund": "Amount to be refunded | Credit balance",
            "terms": "Payment terms | Terms",
            "email": "Email | E-mail",
            "phone": "Tel | Phone",
            "bank": "Bank details | Bank",
            "thanks": "Thank you for your business! | Thank you for your order. | We appreciate your business.",
            "page": "Page",
            "of": "of",
            "currency": "Currency | All amounts in",
            "paid_stamp": "PAID",
            "rounding": "Rounding | Rounding adj.",
            "cash": "Cash | CASH | Cash tendered",
            "change": "Change | CHANGE | Change due",
            "card": "Card | VISA | Mastercard",
            "incl_tax": "incl. VAT | VAT included",
            "reverse": "Reverse charge: VAT to be accounted for by the recipient",
            "cashier": "Cashier | Served by",
        },
        "de": {
            "invoice": "Rechnung | RECHNUNG | Rechnung",
            "receipt": "Quittung | Kassenbon | Beleg",
            "credit_note": "Gutschrift | GUTSCHRIFT | Rechnungskorrektur",
            "number": "Rechnungsnummer | Rechnungs-Nr. | Rechnung Nr. | Beleg-Nr.",
            "credit_number": "Gutschrift-Nr. | Gutschriftsnummer | Beleg-Nr.",
            "receipt_number": "Bon-Nr. | Beleg-Nr. | Quittung Nr.",
            "date": "Rechnungsdatum | Datum | Belegdatum",
            "due": "Fällig am | Fälligkeitsdatum | Zahlbar bis",
            "customer_no": "Kundennummer | Kunden-Nr. | Kd.-Nr.",
            "order": "Bestellnummer | Ihre Bestellung | Auftrags-Nr.",
            "delivery": "Lieferdatum | Leistungsdatum",
            "credit_ref": "Bezug: Rechnung | zu Rechnung | Ursprungsrechnung",
            "bill_to": "Rechnungsempfänger | Rechnungsadresse | Kunde",
            "tax_id": "USt-IdNr. | USt-ID | UID-Nr.",
            "pos": "Pos. | Pos | Nr.",
            "sku": "Art.-Nr. | Artikelnr. | Art.Nr.",
            "desc": "Bezeichnung | Beschreibung | Artikel | Leistung",
            "qty": "Menge | Anzahl | Mng.",
            "unit": "Einheit | ME",
            "price": "Einzelpreis | E-Preis | Preis/Einh. | Einzelpreis netto",
            "line_disc": "Rabatt | Rab.",
            "rate": "MwSt. | USt. | MwSt. %",
            "amount": "Gesamtpreis | Betrag | Gesamt | Summe",
            "subtotal": "Zwischensumme | Summe Positionen | Warenwert",
            "net_total": "Nettobetrag | Summe netto | Gesamt netto | Nettosumme",
            "discount": "Rabatt | Nachlass | abzgl. Rabatt",
            "shipping": "Versandkosten | Fracht | Versand | Versandkostenpauschale",
            "service": "Servicegebühr | Bearbeitungsgebühr",
            "tax": "MwSt. | zzgl. MwSt. | Umsatzsteuer | USt.",
            "sales_tax": "MwSt.",
            "total": "Gesamtbetrag | Rechnungsbetrag | Gesamtsumme | Endbetrag | Gesamt brutto",
            "credit_total": "Gutschriftsbetrag | Gesamtbetrag",
            "deposit": "Anzahlung | abzgl. Anzahlung | Bereits bezahlt | Erhaltene Anzahlung",
            "paid": "Bezahlt | Bereits bezahlt | Betrag erhalten",
            "due_amount": "Zahlbetrag | Offener Betrag | Noch zu zahlen | Zu zahlen",
            "refund": "Erstattungsbetrag | Wir erstatten",
            "terms": "Zahlungsbedingungen | Zahlungsziel | Zahlungsbedingung",
            "email": "E-Mail | Mail",
            "phone": "Tel. | Telefon",
            "bank": "Bankverbindung | Bank",
            "thanks": "Vielen Dank für Ihren Auftrag! | Wir danken für Ihren Einkauf. | Vielen Dank!",
            "page": "Seite",
            "of": "von",
            "currency": "Währung | Beträge in",
            "paid_stamp": "BEZAHLT",
            "rounding": "Rundung | Rundungsdifferenz",
            "cash": "Bar | Gegeben | BAR",
            "change": "Rückgeld | Zurück",
            "card": "EC-Karte | Kartenzahlung | Girocard",
            "incl_tax": "inkl. MwSt. | enthaltene MwSt.",
            "reverse": "Steuerschuldnerschaft des Leistungsempfängers (Reverse Charge)",
            "cashier": "Kasse | Es bediente Sie",
        },
        "fr": {
            "invoice": "Facture | FACTURE | Facture",
            "receipt": "Ticket de caisse | Reçu | TICKET",
            "credit_note": "Avoir | AVOIR | Facture d'avoir",
            "number": "N° de facture | Facture n° | Numéro de facture | Facture N°",
            "credit_number": "Avoir n° | N° d'avoir | Numéro",
            "receipt_number": "Ticket n° | N° de ticket | Reçu n°",
            "date": "Date de facture | Date | Date d'émission | Date de facturation",
            "due": "Échéance | Date d'échéance | À régler avant le",
            "customer_no": "N° client | Code client | Réf. client",
            "order": "Bon de commande | Votre référence | N° de commande",
            "delivery": "Date de livraison | Date de prestation",
            "credit_ref": "Facture liée | Avoir sur facture | Réf. facture",
            "bill_to": "Facturé à | Client | Adresse de facturation | Destinataire",
            "tax_id": "N° TVA | TVA intracom. | N° TVA intracommunautaire",
            "pos": "N° | Pos. | #",
            "sku": "Réf. | Référence | Code",
            "desc": "Désignation | Description | Libellé",
            "qty": "Qté | Quantité | Qté.",
            "unit": "Unité | U.",
            "price": "Prix unitaire | P.U. HT | Prix unit. HT | PU HT",
            "line_disc": "Remise | Rem.",
            "rate": "TVA | Taux TVA | TVA %",
            "amount": "Montant HT | Total HT | Prix HT | Montant",
            "subtotal": "Sous-total | Sous-total HT | Total brut HT",
            "net_total": "Total HT | Montant HT | Total net HT",
            "discount": "Remise | Remise globale | Escompte",
            "shipping": "Frais de port | Frais de livraison | Port",
            "service": "Frais de service | Frais de dossier",
            "tax": "TVA | Total TVA | Montant TVA",
            "sales_tax": "TVA",
            "total": "Total TTC | Montant TTC | Total TTC | Net TTC",
            "credit_total": "Total TTC | Montant de l'avoir TTC",
            "deposit": "Acompte | Acompte versé | Déjà réglé | Acompte reçu",
            "paid": "Payé | Réglé | Montant réglé",
            "due_amount": "Net à payer | Reste à payer | Solde dû | Montant à payer",
            "refund": "Montant à rembourser | Net à déduire",
            "terms": "Conditions de paiement | Conditions de règlement | Règlement",
            "email": "E-mail | Courriel | Email",
            "phone": "Tél. | Tél",
            "bank": "Coordonnées bancaires | Banque",
            "thanks": "Merci de votre confiance. | Merci pour votre commande ! | Merci de votre visite",
            "page": "Page",
            "of": "/ | sur",
            "currency": "Devise | Montants en",
            "paid_stamp": "ACQUITTÉE | PAYÉE",
            "rounding": "Arrondi",
            "cash": "Espèces | ESPECES | Reçu espèces",
            "change": "Rendu | Monnaie rendue",
            "card": "Carte bancaire | CB",
            "incl_tax": "dont TVA | TVA incluse",
            "reverse": "Autoliquidation - TVA due par le preneur (art. 283-2 du CGI)",
            "cashier": "Caisse | Vendeur",
        },
        "nl": {
            "invoice": "Factuur | FACTUUR | Factuur",
            "receipt": "Kassabon | Bon | KASSABON",
            "credit_note": "Creditnota | Creditfactuur | CREDITNOTA",
            "number": "Factuurnummer | Factuurnr. | Factuur nr.",
            "credit_number": "Creditnotanummer | Creditnota nr. | Nummer",
            "receipt_number": "Bonnr. | Bon nr. | Transactie",
            "date": "Factuurdatum | Datum | Datum factuur",
            "due": "Vervaldatum | Uiterste betaaldatum | Te betalen voor",
            "customer_no": "Klantnummer | Klantnr. | Debiteurnr.",
            "order": "Ordernummer | Uw referentie | Bestelnummer",
            "delivery": "Leverdatum | Afleverdatum",
            "credit_ref": "Betreft factuur | Creditering van factuur | Ref. factuur",
            "bill_to": "Factuuradres | Aan | Klant | Gefactureerd aan",
            "tax_id": "BTW-nummer | Btw-nr. | BTW-id",
            "pos": "Nr. | # | Pos.",
            "sku": "Art.nr. | Artikelnummer | Code",
            "desc": "Omschrijving | Artikel | Product",
            "qty": "Aantal | Aant.",
            "unit": "Eenheid | Eenh.",
            "price": "Prijs per stuk | Stukprijs | Prijs | Tarief",
            "line_disc": "Korting",
            "rate": "BTW | Btw % | BTW-tarief",
            "amount": "Bedrag | Totaal | Subtotaal",
            "subtotal": "Subtotaal | Totaal artikelen",
            "net_total": "Totaal excl. BTW | Totaal exclusief btw | Netto bedrag",
            "discount": "Korting | Kortingsbedrag",
            "shipping": "Verzendkosten | Bezorgkosten | Vracht",
            "service": "Servicekosten | Administratiekosten",
            "tax": "BTW | Btw | BTW-bedrag",
            "sales_tax": "BTW",
            "total": "Totaal | Totaal incl. BTW | Totaalbedrag | Totaal inclusief btw",
            "credit_total": "Totaal te crediteren | Totaal",
            "deposit": "Aanbetaling | Reeds betaald | Vooruitbetaling",
            "paid": "Betaald | Reeds voldaan | Ontvangen",
            "due_amount": "Te betalen | Openstaand bedrag | Nog te betalen",
            "refund": "Terug te betalen | Te crediteren",
            "terms": "Betalingsvoorwaarden | Betalingstermijn | Betaling",
            "email": "E-mail | Email",
            "phone": "Tel. | Telefoon",
            "bank": "Bankgegevens | IBAN",
            "thanks": "Bedankt voor uw bestelling! | Hartelijk dank voor uw aankoop. | Dank u wel!",
            "page": "Pagina | Blad",
            "of": "van",
            "currency": "Valuta | Bedragen in",
            "paid_stamp": "BETAALD",
            "rounding": "Afronding | Afrondingsverschil",
            "cash": "Contant | CONTANT",
            "change": "Wisselgeld | Terug",
            "card": "PIN | Pinbetaling",
            "incl_tax": "incl. BTW | waarvan BTW",
            "reverse": "BTW verlegd",
            "cashier": "Kassa | Medewerker",
        },
        "es": {
            "invoice": "Factura | FACTURA | Factura",
            "receipt": "Ticket | Recibo | Factura simplificada",
            "credit_note": "Factura rectificativa | Nota de crédito | Factura de abono",
            "number": "Nº de factura | Factura nº | Número de factura | Nº Factura",
            "credit_number": "Nº rectificativa | Número | Nº de abono",
            "receipt_number": "Ticket nº | Nº ticket | Recibo nº",
            "date": "Fecha de factura | Fecha | Fecha de emisión | Fecha factura",
            "due": "Fecha de vencimiento | Vencimiento | Vence",
            "customer_no": "Nº de cliente | Cód. cliente | Cliente nº",
            "order": "Nº de pedido | Su referencia | Pedido",
            "delivery": "Fecha de entrega | Fecha de servicio",
            "credit_ref": "Factura rectificada | Rectifica a la factura | Ref. factura",
            "bill_to": "Facturar a | Cliente | Datos del cliente | Destinatario",
            "tax_id": "NIF | CIF | NIF-IVA",
            "pos": "Nº | Lín. | #",
            "sku": "Ref. | Código | Artículo",
            "desc": "Descripción | Concepto | Artículo",
            "qty": "Cant. | Cantidad | Uds.",
            "unit": "Unidad | Ud.",
            "price": "Precio unitario | Precio | P. unit. | Precio ud.",
            "line_disc": "Dto. | Descuento | % Dto.",
            "rate": "IVA | % IVA | Tipo IVA",
            "amount": "Importe | Total | Subtotal",
            "subtotal": "Subtotal | Suma | Importe bruto",
            "net_total": "Base imponible | Base imp. | Total base imponible",
            "discount": "Descuento | Dto. pronto pago",
            "shipping": "Gastos de envío | Portes | Transporte",
            "service": "Cargo por servicio | Gastos de gestión",
            "tax": "IVA | Cuota IVA | Total IVA",
            "sales_tax": "IVA",
            "total": "Total | Total factura | TOTAL | Importe total",
            "credit_total": "Total rectificativa | Total abono",
            "deposit": "Anticipo | Pagado a cuenta | Entregado a cuenta",
            "paid": "Pagado | Cobrado | Importe pagado",
            "due_amount": "Total a pagar | Importe pendiente | Pendiente de pago",
            "refund": "Importe a devolver | A abonar",
            "terms": "Forma de pago | Condiciones de pago | Vencimiento",
            "email": "Email | Correo",
            "phone": "Tel. | Teléfono",
            "bank": "Datos bancarios | IBAN",
            "thanks": "Gracias por su confianza. | ¡Gracias por su compra! | Gracias por su visita",
            "page": "Página | Pág.",
            "of": "de",
            "currency": "Moneda | Importes en",
            "paid_stamp": "PAGADA",
            "rounding": "Redondeo",
            "cash": "Efectivo | Entregado",
            "change": "Cambio | Devolución",
            "card": "Tarjeta | Pago con tarjeta",
            "incl_tax": "IVA incluido | Impuestos incluidos",
            "reverse": "Inversión del sujeto pasivo",
            "cashier": "Caja | Le atendió",
        },
        "it": {
            "invoice": "Fattura | FATTURA | Fattura",
            "receipt": "Scontrino | Ricevuta | Documento commerciale",
            "credit_note": "Nota di credito | NOTA DI CREDITO | Nota credito",
            "number": "Fattura n. | Numero fattura | N. documento | Fattura N°",
            "credit_number": "Nota di credito n. | N. documento | Numero",
            "receipt_number": "Documento n. | Scontrino n. | Ricevuta n.",
            "date": "Data fattura | Data | Data documento | Del",
            "due": "Scadenza | Data scadenza | Scad.",
            "customer_no": "Cod. cliente | Codice cliente | Cliente n.",
            "order": "Rif. ordine | Vs. ordine | Ordine n.",
            "delivery": "Data consegna | DDT del",
            "credit_ref": "Rif. fattura | Storno fattura | A storno della fattura",
            "bill_to": "Destinatario | Spett.le | Cliente | Intestatario",
            "tax_id": "P.IVA | Partita IVA | P. IVA",
            "pos": "N. | Riga | #",
            "sku": "Cod. art. | Codice | Articolo",
            "desc": "Descrizione | Descrizione articolo | Prodotto",
            "qty": "Q.tà | Quantità | Qtà",
            "unit": "U.M. | Unità",
            "price": "Prezzo unitario | Prezzo | Prezzo unit. | Pr. unit.",
            "line_disc": "Sconto | Sc. %",
            "rate": "IVA | Aliquota | % IVA",
            "amount": "Importo | Totale | Imponibile",
            "subtotal": "Subtotale | Totale merce | Totale righe",
            "net_total": "Imponibile | Totale imponibile | Tot. imponibile",
            "discount": "Sconto | Sconto incondizionato | Abbuono",
            "shipping": "Spese di spedizione | Spese di trasporto | Trasporto",
            "service": "Spese di servizio | Spese incasso",
            "tax": "IVA | Totale IVA | Imposta",
            "sales_tax": "IVA",
            "total": "Totale documento | Totale fattura | Totale | TOTALE",
            "credit_total": "Totale nota di credito | Totale documento",
            "deposit": "Acconto | Già pagato | Acconto ricevuto",
            "paid": "Pagato | Saldato | Importo pagato",
            "due_amount": "Totale da pagare | Netto a pagare | Da pagare | Residuo",
            "refund": "Importo da rimborsare | Totale a credito",
            "terms": "Condizioni di pagamento | Modalità di pagamento | Pagamento",
            "email": "E-mail | Email | PEC",
            "phone": "Tel. | Telefono",
            "bank": "Coordinate bancarie | Banca | IBAN",
            "thanks": "Grazie per la fiducia. | Grazie e arrivederci | Grazie per il vostro ordine",
            "page": "Pagina | Pag.",
            "of": "di",
            "currency": "Valuta | Importi in",
            "paid_stamp": "PAGATA | SALDATA",
            "rounding": "Arrotondamento",
            "cash": "Contanti | CONTANTI | Pagamento contante",
            "change": "Resto | RESTO",
            "card": "Carta | Bancomat | Pagamento elettronico",
            "incl_tax": "di cui IVA | IVA inclusa",
            "reverse": "Inversione contabile (reverse charge)",
            "cashier": "Cassa | Operatore",
        },
        "zh": {
            "invoice": "发票 | 增值税普通发票 | 增值税专用发票 | 电子发票（普通发票）",
            "receipt": "收据 | 收款收据 | 购物小票",
            "credit_note": "红字发票 | 贷项通知单 | 红字增值税普通发票",
            "number": "发票号码 | 发票号 | 单据编号",
            "credit_number": "发票号码 | 通知单编号 | 单据编号",
            "receipt_number": "单号 | 小票号 | 收据编号",
            "date": "开票日期 | 日期 | 开具日期",
            "due": "到期日 | 付款截止日期 | 付款日期",
            "customer_no": "客户编号 | 客户代码",
            "order": "订单号 | 合同编号 | 采购单号",
            "delivery": "交货日期 | 发货日期",
            "credit_ref": "对应蓝字发票号码 | 原发票号码 | 原发票号",
            "bill_to": "购买方 | 客户 | 购货单位",
            "tax_id": "纳税人识别号 | 统一社会信用代码/纳税人识别号 | 税号",
            "pos": "序号 | 行号",
            "sku": "商品编码 | 编码 | 规格型号",
            "desc": "货物或应税劳务、服务名称 | 项目名称 | 品名 | 商品名称",
            "qty": "数量",
            "unit": "单位",
            "price": "单价 | 单价(不含税)",
            "line_disc": "折扣 | 折扣额",
            "rate": "税率 | 税率/征收率",
            "amount": "金额 | 金额(不含税)",
            "subtotal": "小计 | 合计 | 金额合计",
            "net_total": "合计 | 不含税金额 | 金额合计",
            "discount": "折扣 | 优惠 | 折扣金额",
            "shipping": "运费 | 配送费 | 物流费",
            "service": "服务费",
            "tax": "税额 | 增值税 | 税额合计",
            "sales_tax": "税额",
            "total": "价税合计 | 总计 | 合计金额 | 价税合计（小写）",
            "credit_total": "价税合计 | 冲红金额",
            "deposit": "预付款 | 已付定金 | 已付金额",
            "paid": "已付款 | 已收款 | 实付金额",
            "due_amount": "应付金额 | 未付金额 | 待付金额",
            "refund": "应退金额 | 退款金额",
            "terms": "付款条件 | 付款方式 | 结算方式",
            "email": "邮箱 | 电子邮件 | Email",
            "phone": "电话 | 联系电话",
            "bank": "开户行及账号 | 银行账户",
            "thanks": "谢谢惠顾！ | 欢迎再次光临 | 感谢您的惠顾",
            "page": "第",
            "of": "页 共",
            "currency": "币种 | 货币",
            "paid_stamp": "已付款",
            "rounding": "抹零 | 舍入",
            "cash": "现金 | 实收 | 收款",
            "change": "找零 | 找赎",
            "card": "银行卡 | 微信支付 | 支付宝",
            "incl_tax": "含税 | 其中税额",
            "reverse": "免税",
            "cashier": "收银员 | 收银台",
        },
        "th": {
            "invoice": "ใบกำกับภาษี | ใบแจ้งหนี้/ใบกำกับภาษี | ใบกำกับภาษี / ใบแจ้งหนี้ | ใบแจ้งหนี้",
            "receipt": "ใบเสร็จรับเงิน | ใบเสร็จรับเงิน/ใบกำกับภาษีอย่างย่อ | ใบเสร็จ",
            "credit_note": "ใบลดหนี้ | ใบลดหนี้/ใบกำกับภาษี",
            "number": "เลขที่ | เลขที่ใบกำกับภาษี | เลขที่เอกสาร",
            "credit_number": "เลขที่ | เลขที่ใบลดหนี้",
            "receipt_number": "เลขที่ | เลขที่ใบเสร็จ",
            "date": "วันที่ | วันที่ออก | ลงวันที่",
            "due": "ครบกำหนดชำระ | วันครบกำหนด | กำหนดชำระ",
            "customer_no": "รหัสลูกค้า",
            "order": "เลขที่ใบสั่งซื้อ | อ้างอิง",
            "delivery": "วันที่ส่งของ",
            "credit_ref": "อ้างอิงใบกำกับภาษีเลขที่ | ใบกำกับภาษีเดิมเลขที่",
            "bill_to": "ลูกค้า | นามลูกค้า | ชื่อลูกค้า",
            "tax_id": "เลขประจำตัวผู้เสียภาษี | เลขประจำตัวผู้เสียภาษีอากร | Tax ID",
            "pos": "ลำดับ | ที่",
            "sku": "รหัสสินค้า | รหัส",
            "desc": "รายการ | รายละเอียด | รายการสินค้า",
            "qty": "จำนวน",
            "unit": "หน่วย",
            "price": "ราคาต่อหน่วย | ราคา/หน่วย",
            "line_disc": "ส่วนลด",
            "rate": "ภาษี | อัตราภาษี",
            "amount": "จำนวนเงิน | ยอดเงิน",
            "subtotal": "รวมเงิน | รวม",
            "net_total": "รวมเงิน | มูลค่าสินค้า | ราคาก่อนภาษี",
            "discount": "ส่วนลด | หักส่วนลด",
            "shipping": "ค่าขนส่ง | ค่าจัดส่ง",
            "service": "ค่าบริการ",
            "tax": "ภาษีมูลค่าเพิ่ม | ภาษีมูลค่าเพิ่ม",
            "sales_tax": "ภาษีมูลค่าเพิ่ม",
            "total": "ยอดรวมทั้งสิ้น | จำนวนเงินรวมทั้งสิ้น | รวมทั้งสิ้น",
            "credit_total": "ยอดลดหนี้รวม | รวมทั้งสิ้น",
            "deposit": "หักเงินมัดจำ | ชำระแล้ว | เงินมัดจำ",
            "paid": "ชำระแล้ว | รับชำระ",
            "due_amount": "ยอดค้างชำระ | ยอดที่ต้องชำระ | คงเหลือชำระ",
            "refund": "ยอดคืนเงิน",
            "terms": "เงื่อนไขการชำระเงิน | เงื่อนไขการชำระ",
            "email": "อีเมล | E-mail",
            "phone": "โทร | โทรศัพท์",
            "bank": "ธนาคาร | บัญชีธนาคาร",
            "thanks": "ขอบคุณที่ใช้บริการ | ขอบคุณค่ะ | ขอบคุณครับ",
            "page": "หน้า",
            "of": "/",
            "currency": "สกุลเงิน",
            "paid_stamp": "ชำระแล้ว",
            "rounding": "ปัดเศษ",
            "cash": "เงินสด | รับเงิน",
            "change": "เงินทอน | ทอน",
            "card": "บัตรเครดิต",
            "incl_tax": "รวมภาษีมูลค่าเพิ่มแล้ว | ราคารวม VAT",
            "reverse": "ได้รับยกเว้นภาษีมูลค่าเพิ่ม",
            "cashier": "พนักงาน | แคชเชียร์",
        },
    }
)


# Unit labels by key, variants separated by " | " (one chosen per document and key).
UNITS = _variants(
    {
        "en": {
            "pc": "pcs | pc | ea | Units",
            "h": "hrs | h | hours",
            "kg": "kg",
            "m": "m",
            "mo": "month | mo",
            "set": "set",
            "day": "day | days",
            "l": "l | L",
            "box": "box | ctn",
        },
        "de": {
            "pc": "Stk. | St. | Stück",
            "h": "Std. | h",
            "kg": "kg",
            "m": "m | lfm",
            "mo": "Monat | Mon.",
            "set": "Satz | Set",
            "day": "Tag | PT",
            "l": "l | Ltr.",
            "box": "Karton | VE",
        },
        "fr": {
            "pc": "pce | u. | unité",
            "h": "h | heure",
            "kg": "kg",
            "m": "m | ml",
            "mo": "mois",
            "set": "lot | kit",
            "day": "jour | j",
            "l": "l | L",
            "box": "carton | colis",
        },
        "nl": {
            "pc": "st. | stuks | stk",
            "h": "uur | u",
            "kg": "kg",
            "m": "m | mtr",
            "mo": "maand | mnd",
            "set": "set",
            "day": "dag",
            "l": "l | ltr",
            "box": "doos | colli",
        },
        "es": {
            "pc": "ud. | uds. | unid.",
            "h": "h | horas",
            "kg": "kg",
            "m": "m",
            "mo": "mes",
            "set": "juego | kit",
            "day": "día",
            "l": "l | L",
            "box": "caja",
        },
        "it": {
            "pc": "pz. | n. | pz",
            "h": "ore | h",
            "kg": "kg",
            "m": "m | mt",
            "mo": "mese",
            "set": "set | kit",
            "day": "gg",
            "l": "l | lt",
            "box": "cartone | conf.",
        },
        "zh": {
            "pc": "个 | 件 | 台",
            "h": "小时",
            "kg": "千克 | 公斤",
            "m": "米",
            "mo": "月",
            "set": "套",
            "day": "天",
            "l": "升",
            "box": "箱",
        },
        "th": {
            "pc": "ชิ้น | อัน",
            "h": "ชั่วโมง | ชม.",
            "kg": "กก.",
            "m": "เมตร",
            "mo": "เดือน",
            "set": "ชุด",
            "day": "วัน",
            "l": "ลิตร",
            "box": "กล่อง",
        },
    }
)


# Catalogues: (language, description, unit key, low price, high price) in the language's words
# (EUR-ish prices).
ITEMS = _by_language(
    (
        ("en", "Consulting services", "h", 80, 180),
        ("en", "Software licence (annual)", "pc", 120, 900),
        ("en", "Website maintenance", "mo", 90, 450),
        ("en", "Office chair ergonomic", "pc", 120, 380),
        ("en", "Printer paper A4 80g", "box", 18, 45),
        ("en", "Wireless keyboard and mouse set", "set", 25, 89),
        ("en", "Installation and configuration", "h", 65, 120),
        ("en", "Cloud hosting - business plan", "mo", 19, 249),
        ("en", "Logo design", "pc", 250, 900),
        ("en", "LED panel 60x60 40W", "pc", 22, 75),
        ("en", "Copper cable 2.5mm2", "m", 1, 4),
        ("en", "Olive oil extra virgin", "l", 6, 18),
        ("en", "Roasted coffee beans", "kg", 14, 38),
        ("en", "Training workshop", "day", 450, 1400),
        ("en", "Toner cartridge black", "pc", 35, 120),
        ("en", "Translation EN-DE", "pc", 40, 300),
        ("de", "Beratungsleistung", "h", 80, 160),
        ("de", "Softwarelizenz (Jahresabo)", "pc", 120, 900),
        ("de", "Wartungsvertrag Website", "mo", 90, 450),
        ("de", "Bürostuhl ergonomisch", "pc", 120, 380),
        ("de", "Kopierpapier A4 80 g/m²", "box", 18, 45),
        ("de", "Montage und Inbetriebnahme", "h", 55, 95),
        ("de", "Trennblätter A4", "pc", 3, 12),
        ("de", "Kunstrasen grün 3m breit", "m", 8, 25),
        ("de", "Schweinesteak", "kg", 6, 16),
        ("de", "Mineralwasser Medium 12 x 1,0l PET", "box", 4, 9),
        ("de", "Fahrtkostenpauschale", "pc", 25, 80),
        ("de", "Schulung Mitarbeiter", "day", 450, 1400),
        ("de", "Tonerkartusche schwarz", "pc", 35, 120),
        ("de", "Kupferkabel NYM-J 3x1,5", "m", 1, 4),
        ("de", "Webhosting Business", "mo", 9, 49),
        ("de", "Reinigung Büroflächen", "h", 25, 45),
        ("fr", "Prestation de conseil", "h", 80, 160),
        ("fr", "Licence logiciel annuelle", "pc", 120, 900),
        ("fr", "Maintenance site internet", "mo", 90, 450),
        ("fr", "Fauteuil de bureau ergonomique", "pc", 120, 380),
        ("fr", "Ramette papier A4 80 g", "box", 18, 45),
        ("fr", "Nougat de l'Abbaye 250g", "pc", 3, 9),
        ("fr", "Huile d'olive à l'ancienne", "l", 9, 25),
        ("fr", "Installation et paramétrage", "h", 55, 95),
        ("fr", "Formation du personnel", "day", 450, 1400),
        ("fr", "Cartouche de toner noir", "pc", 35, 120),
        ("fr", "Câble cuivre 2,5 mm²", "m", 1, 4),
        ("fr", "Hébergement web professionnel", "mo", 9, 49),
        ("fr", "Création de logo", "pc", 250, 900),
        ("fr", "Café en grains torréfié", "kg", 14, 38),
        ("nl", "Advieswerkzaamheden", "h", 80, 160),
        ("nl", "Softwarelicentie (jaar)", "pc", 120, 900),
        ("nl", "Onderhoud website", "mo", 90, 450),
        ("nl", "Ergonomische bureaustoel", "pc", 120, 380),
        ("nl", "Kopieerpapier A4 80 grams", "box", 18, 45),
        ("nl", "Installatie en configuratie", "h", 55, 95),
        ("nl", "Opleiding medewerkers", "day", 450, 1400),
        ("nl", "Tonercartridge zwart", "pc", 35, 120),
        ("nl", "Koperkabel 2,5 mm²", "m", 1, 4),
        ("nl", "Webhosting zakelijk", "mo", 9, 49),
        ("nl", "Koffiebonen gebrand", "kg", 14, 38),
        ("nl", "Schoonmaakwerkzaamheden kantoor", "h", 25, 45),
        ("nl", "Philips Saeco koffiemachine onderhoudsset", "set", 15, 35),
        ("nl", "Laptop 15 inch", "pc", 499, 1499),
        ("es", "Servicios de consultoría", "h", 70, 150),
        ("es", "Licencia de software anual", "pc", 120, 900),
        ("es", "Mantenimiento página web", "mo", 90, 450),
        ("es", "Silla de oficina ergonómica", "pc", 120, 380),
        ("es", "Papel A4 80 g (caja 5 paquetes)", "box", 18, 45),
        ("es", "Instalación y configuración", "h", 50, 90),
        ("es", "Formación de personal", "day", 400, 1200),
        ("es", "Cartucho de tóner negro", "pc", 35, 120),
        ("es", "Cable de cobre 2,5 mm²", "m", 1, 4),
        ("es", "Alojamiento web empresa", "mo", 9, 49),
        ("es", "Aceite de oliva virgen extra", "l", 5, 15),
        ("es", "Jamón serrano loncheado", "kg", 18, 45),
        ("es", "Diseño de logotipo", "pc", 250, 900),
        ("es", "Servicio de limpieza", "h", 15, 30),
        ("it", "Consulenza tecnica", "h", 70, 150),
        ("it", "Licenza software annuale", "pc", 120, 900),
        ("it", "Manutenzione sito web", "mo", 90, 450),
        ("it", "Sedia da ufficio ergonomica", "pc", 120, 380),
        ("it", "Carta per fotocopie A4 80 g", "box", 18, 45),
        ("it", "Installazione e configurazione", "h", 50, 90),
        ("it", "Corso di formazione", "day", 400, 1200),
        ("it", "Cartuccia toner nero", "pc", 35, 120),
        ("it", "Cavo in rame 2,5 mm²", "m", 1, 4),
        ("it", "Hosting web aziendale", "mo", 9, 49),
        ("it", "Olio extravergine di oliva", "l", 7, 20),
        ("it", "Parmigiano Reggiano 24 mesi", "kg", 18, 35),
        ("it", "Progettazione grafica logo", "pc", 250, 900),
        ("it", "Servizio di pulizia uffici", "h", 15, 30),
        ("zh", "技术咨询服务费", "h", 80, 160),
        ("zh", "软件许可证（年度）", "pc", 120, 900),
        ("zh", "网站维护服务", "mo", 90, 450),
        ("zh", "人体工学办公椅", "pc", 120, 380),
        ("zh", "A4复印纸 80克", "box", 18, 45),
        ("zh", "安装调试费", "h", 50, 90),
        ("zh", "员工培训服务", "day", 400, 1200),
        ("zh", "黑色硒鼓", "pc", 35, 120),
        ("zh", "铜芯电缆 2.5平方", "m", 1, 4),
        ("zh", "云服务器租赁", "mo", 9, 249),
        ("zh", "咖啡豆（烘焙）", "kg", 14, 38),
        ("zh", "办公桌", "pc", 150, 600),
        ("zh", "*信息技术服务*软件开发", "pc", 500, 5000),
        ("zh", "*办公用品*签字笔", "box", 5, 20),
        ("th", "ค่าบริการที่ปรึกษา", "h", 80, 160),
        ("th", "ค่าลิขสิทธิ์ซอฟต์แวร์รายปี", "pc", 120, 900),
        ("th", "ค่าบำรุงรักษาเว็บไซต์", "mo", 90, 450),
        ("th", "เก้าอี้สำนักงาน", "pc", 120, 380),
        ("th", "กระดาษถ่ายเอกสาร A4 80 แกรม", "box", 18, 45),
        ("th", "ค่าติดตั้งและตั้งค่าระบบ", "h", 50, 90),
        ("th", "ค่าฝึกอบรมพนักงาน", "day", 400, 1200),
        ("th", "ตลับหมึกโทนเนอร์สีดำ", "pc", 35, 120),
        ("th", "สายไฟทองแดง 2.5 ตร.มม.", "m", 1, 4),
        ("th", "ค่าเช่าพื้นที่โฮสติ้ง", "mo", 9, 49),
        ("th", "เมล็ดกาแฟคั่ว", "kg", 14, 38),
        ("th", "น้ำดื่ม 600 มล. แพ็ค 12 ขวด", "box", 2, 5),
        ("my", 'CABLE TIE 4" 100PCS', "pc", 2, 6),
        ("my", "PVC TAPE BLACK 18MM", "pc", 1, 4),
        ("my", "MILO 3IN1 18X33G", "pc", 12, 20),
        ("my", "GARDENIA CLASSIC 400G", "pc", 3, 5),
        ("my", "KOPI O AIS", "pc", 1, 4),
        ("my", "NASI LEMAK AYAM", "pc", 5, 14),
        ("my", "TEH TARIK", "pc", 1, 4),
        ("my", "ROTI CANAI", "pc", 1, 3),
        ("my", "A4 PAPER 70GSM 500S", "pc", 9, 16),
        ("my", "SCREW DRIVER SET 6PCS", "set", 8, 25),
        ("my", "MINERAL WATER 1.5L", "pc", 1, 3),
        ("my", "FLORAL ARRANGEMENT", "pc", 60, 300),
        ("my", "BATTERY AA 4S", "pc", 5, 12),
        ("my", "CHICKEN RICE", "pc", 6, 12),
        ("my", "EXERCISE BOOK 80P", "pc", 1, 3),
    )
)


DETAILS = {
    "en": (
        "incl. installation and configuration on site",
        "as per quotation {ref} dated {d}",
        "period {d} - {d2}",
        "serial no. {sn}, warranty 24 months",
        "project {ref}, phase 2, remote and on-site work",
        "remote and on-site support for the migration of the accounting system, including data transfer, "
        "user training and documentation",
    ),
    "de": (
        "inkl. Montage und Inbetriebnahme vor Ort",
        "gemäß Angebot {ref} vom {d}",
        "Leistungszeitraum {d} - {d2}",
        "Seriennr. {sn}, Garantie 24 Monate",
        "Projekt {ref}, Phase 2, Remote- und Vor-Ort-Einsatz",
        "Unterstützung bei der Migration der Finanzbuchhaltung inklusive Datenübernahme, Anwenderschulung "
        "und Dokumentation",
    ),
    "fr": (
        "y compris installation et mise en service sur site",
        "selon devis {ref} du {d}",
        "période du {d} au {d2}",
        "n° de série {sn}, garantie 24 mois",
        "projet {ref}, phase 2, travail à distance et sur site",
        "accompagnement à la migration du logiciel de comptabilité, reprise des données, formation des "
        "utilisateurs et documentation",
    ),
    "nl": (
        "incl. installatie en ingebruikname op locatie",
        "volgens offerte {ref} van {d}",
        "periode {d} t/m {d2}",
        "serienr. {sn}, garantie 24 maanden",
        "project {ref}, fase 2, op afstand en op locatie",
        "ondersteuning bij de migratie van de boekhoudsoftware inclusief dataconversie, gebruikerstraining "
        "en documentatie",
    ),
    "es": (
        "incluye instalación y puesta en marcha in situ",
        "según presupuesto {ref} del {d}",
        "periodo {d} - {d2}",
        "nº de serie {sn}, garantía 24 meses",
        "proyecto {ref}, fase 2, trabajo remoto y presencial",
        "soporte en la migración del sistema contable, incluida la transferencia de datos, formación de "
        "usuarios y documentación",
    ),
    "it": (
        "compresa installazione e messa in servizio presso il cliente",
        "come da preventivo {ref} del {d}",
        "periodo dal {d} al {d2}",
        "matricola {sn}, garanzia 24 mesi",
        "progetto {ref}, fase 2, attività da remoto e in sede",
        "supporto alla migrazione del sistema contabile, compresi trasferimento dati, formazione degli "
        "utenti e documentazione",
    ),
    "zh": (
        "含现场安装调试",
        "根据报价单{ref}",
        "服务期间 {d} 至 {d2}",
        "序列号 {sn}，保修24个月",
        "项目{ref}第二阶段",
        "财务系统迁移技术支持，包括数据迁移、用户培训及相关文档编制服务",
    ),
    "th": (
        "รวมค่าติดตั้งและทดสอบระบบ ณ สถานที่ลูกค้า",
        "ตามใบเสนอราคาเลขที่ {ref}",
        "ระยะเวลา {d} - {d2}",
        "หมายเลขเครื่อง {sn} รับประกัน 24 เดือน",
        "โครงการ {ref} ระยะที่ 2",
        "บริการสนับสนุนการย้ายระบบบัญชี รวมการโอนย้ายข้อมูล การฝึกอบรมผู้ใช้งาน และจัดทำเอกสารประกอบ",
    ),
}


TERMS = {
    "en": (
        "Net {n}",
        "Payment due within {n} days",
        "Net {n} days",
        "Due on receipt",
        "Payment within {n} days of invoice date",
    ),
    "de": (
        "Zahlbar innerhalb {n} Tagen ohne Abzug",
        "Zahlbar innerhalb {n} Tagen netto",
        "Zahlbar sofort rein netto",
        "Zahlbar bis {due} ohne Abzug",
        "{n} Tage netto, 2 % Skonto innerhalb 10 Tagen",
    ),
    "fr": (
        "Paiement à {n} jours",
        "Paiement à réception de facture",
        "Règlement à {n} jours date de facture",
        "Paiement par virement avant le {due}",
    ),
    "nl": (
        "Betaling binnen {n} dagen",
        "Te voldoen binnen {n} dagen na factuurdatum",
        "Direct betalen",
        "Betaaltermijn {n} dagen",
    ),
    "es": (
        "Pago a {n} días",
        "Transferencia bancaria a {n} días",
        "Pago al contado",
        "Vencimiento a {n} días fecha factura",
    ),
    "it": (
        "Pagamento a {n} giorni data fattura",
        "Bonifico bancario {n} gg d.f.",
        "Rimessa diretta",
        "Pagamento a vista",
    ),
    "zh": ("付款期限：{n}天", "开票后{n}天内付款", "货到付款", "银行转账，{n}日内结清"),
    "th": ("ชำระภายใน {n} วัน", "เครดิต {n} วัน", "ชำระเงินสด", "ชำระภายในวันที่ {due}"),
}


COUNTRY_NAMES = {
    "US": {"en": "USA"},
    "GB": {"en": "United Kingdom"},
    "IE": {"en": "Ireland"},
    "CH": {"en": "Switzerland", "de": "Schweiz", "fr": "Suisse", "it": "Svizzera"},
    "JP": {"en": "Japan"},
    "MY": {"en": "Malaysia"},
    "DE": {"de": "Deutschland", "en": "Germany"},
    "AT": {"de": "Österreich"},
    "FR": {"fr": "France"},
    "BE": {"fr": "Belgique", "nl": "België"},
    "NL": {"nl": "Nederland"},
    "ES": {"es": "España"},
    "IT": {"it": "Italia"},
    "CN": {"zh": "中国"},
    "TH": {"th": "ประเทศไทย"},
}


@dataclass(frozen=True)
class Country:
    code: str
    faker: str
    currency: str
    rates: tuple[str, ...]  # standard first (percent)
    numfmt: tuple[tuple[str, str], ...]  # (thousands, decimal) choices


COUNTRIES = {
    "US": Country("US", "en_US", "USD", ("8.875", "7.25", "6.5", "8.25", "0"), ((",", "."),)),
    "GB": Country("GB", "en_GB", "GBP", ("20", "5", "0"), ((",", "."),)),
    "IE": Country("IE", "en_IE", "EUR", ("23", "13.5"), ((",", "."),)),
    "CH": Country("CH", "de_CH", "CHF", ("8.1", "2.6"), (("'", "."), ("’", "."), ("", "."))),
    "JP": Country("JP", "en_US", "JPY", ("10", "8"), ((",", "."),)),
    "MY": Country("MY", "en_MS", "MYR", ("6",), ((",", "."),)),
    "DE": Country("DE", "de_DE", "EUR", ("19", "7"), ((".", ","), ("", ","))),
    "AT": Country("AT", "de_AT", "EUR", ("20", "10"), ((".", ","), (" ", ","))),
    "FR": Country("FR", "fr_FR", "EUR", ("20", "10", "5.5"), ((" ", ","), ("\u00a0", ","), (".", ","))),
    "BE": Country("BE", "nl_BE", "EUR", ("21", "6"), ((".", ","), (" ", ","))),
    "NL": Country("NL", "nl_NL", "EUR", ("21", "9"), ((".", ","),)),
    "ES": Country("ES", "es_ES", "EUR", ("21", "10", "4"), ((".", ","),)),
    "IT": Country("IT", "it_IT", "EUR", ("22", "10", "4"), ((".", ","), ("", ","))),
    "CN": Country("CN", "zh_CN", "CNY", ("13", "9", "6"), ((",", "."), ("", "."))),
    "TH": Country("TH", "th_TH", "THB", ("7",), ((",", "."),)),
}


# Countries a language's documents come from (weights by repetition).
LANG_COUNTRIES = {
    "en": ("US", "US", "GB", "GB", "IE", "CH", "JP", "MY"),
    "de": ("DE", "DE", "DE", "DE", "AT", "CH"),
    "fr": ("FR", "FR", "FR", "FR", "BE", "CH"),
    "nl": ("NL", "NL", "NL", "BE"),
    "es": ("ES",),
    "it": ("IT", "IT", "IT", "IT", "CH"),
    "zh": ("CN",),
    "th": ("TH",),
}


PRICE_SCALE = {"USD": 1.1, "GBP": 0.9, "EUR": 1, "CHF": 1, "JPY": 150, "MYR": 4, "CNY": 7, "THB": 35}


SYMBOLS = {
    "EUR": ("€",),
    "USD": ("$", "US$"),
    "GBP": ("£",),
    "CHF": ("CHF", "Fr."),
    "JPY": ("¥",),
    "MYR": ("RM",),
    "CNY": ("¥", "￥"),
    "THB": ("฿", "บาท"),
}


SUFFIX_SYMBOLS = {"円", "บาท"}


# Malaysian shop receipts (SROIE style).
MY_WORDS = (
    "LIAN",
    "HING",
    "HON",
    "HWA",
    "BOON",
    "SENG",
    "AIK",
    "HUAT",
    "GIN",
    "KEE",
    "YONG",
    "FATT",
    "CHUAN",
    "LEONG",
    "WAH",
    "TECK",
    "SOON",
    "KIM",
    "LOONG",
    "SIN",
    "MAJU",
    "JAYA",
    "SRI",
    "MEGAH",
)


MY_TRADES = (
    "TRADING",
    "HARDWARE",
    "STATIONERY",
    "ENTERPRISE",
    "MINI MARKET",
    "RESTAURANT",
    "BAKERY",
    "FLORIST",
    "PHARMACY",
    "MOTOR",
    "CAFE",
    "BOOKSTORE",
    "ELECTRICAL",
)


MY_SUFFIX = ("SDN BHD", "SDN. BHD.", "(M) SDN BHD", "SDN BHD", "", "ENTERPRISE")


MY_PREFIX = ("", "", "", "PERNIAGAAN ", "SYARIKAT ", "KEDAI ")


BRAND_TAGLINES = {
    "en": ("Quality since {y}", "Your partner for office supplies", "Smart solutions", "Excellence in service"),
    "de": ("Qualität seit {y}", "Ihr Partner für Bürobedarf", "Lösungen mit System", "Ihr Fachhändler"),
    "fr": ("Depuis {y}", "Votre partenaire bureautique", "Solutions sur mesure", "Le savoir-faire"),
    "nl": ("Sinds {y}", "Uw partner in kantoorartikelen", "Slimme oplossingen"),
    "es": ("Desde {y}", "Su socio de confianza", "Soluciones inteligentes"),
    "it": ("Dal {y}", "Il vostro partner di fiducia", "Qualità e servizio"),
    "zh": ("诚信经营 品质保证", "专业 · 高效 · 诚信", "始创于{y}年"),
    "th": ("คุณภาพมาตรฐาน", "บริการด้วยใจ", "ก่อตั้งปี {y}"),
}


def money(value, places: int = 2) -> Decimal:
    """``value`` rounded half-up to ``places`` decimals (money is never rounded any other way)."""
    return D(value).quantize(D(1).scaleb(-places), rounding=ROUND_HALF_UP)


@dataclass(frozen=True)
class NumFmt:
    thousands: str
    decimal: str
    places: int

    def num(self, value: Decimal, places: int | None = None) -> str:
        """``value`` printed with this format (sign in front)."""
        places = self.places if places is None else places
        text = f"{abs(money(value, places)):,.{places}f}"
        whole, _, frac = text.partition(".")
        out = whole.replace(",", self.thousands) + (self.decimal + frac if places else "")
        return ("-" if value < 0 else "") + out

    def qty(self, value: Decimal) -> str:
        """A quantity with as many decimals as it has (up to 3)."""
        places = max(0, -value.normalize().as_tuple().exponent)
        return self.num(value, min(places, 3))


@dataclass(frozen=True)
class Cur:
    """How a document shows its currency: ``mode`` code_before/code_after/sym_before/sym_after."""

    code: str
    symbol: str
    mode: str

    def show(self, amount: str) -> str:
        sign, amount = ("-", amount[1:]) if amount.startswith("-") else ("", amount)
        if self.mode == "code_before":
            return f"{sign}{self.code} {amount}"
        if self.mode == "code_after":
            return f"{sign}{amount} {self.code}"
        if self.mode == "sym_before":
            sep = " " if len(self.symbol) > 1 else ""
            return f"{sign}{self.symbol}{sep}{amount}"
        return f"{sign}{amount} {self.symbol}"


# How each date style prints (str.format): d, m, y the day, month and year; yy the year's last two
# digits; be the Buddhist-era year; en and mon the English month name and its first three letters;
# th and th_short the Thai month name and abbreviation; month the month in the document's
# language. Other styles ("long") print the language's long date (fmt_date).
_DATE_FORMATS = {
    "dmy/": "{d:02d}/{m:02d}/{y}",
    "dmy.": "{d:02d}.{m:02d}.{y}",
    "dmy-": "{d:02d}-{m:02d}-{y}",
    "mdy/": "{m:02d}/{d:02d}/{y}",
    "iso": "{y}-{m:02d}-{d:02d}",
    "cjk": "{y}年{m:02d}月{d:02d}日",
    "dmy/be": "{d:02d}/{m:02d}/{be}",
    "dmy/yy": "{d:02d}/{m:02d}/{yy:02d}",
    "mon_d_y": "{mon} {d}, {y}",
    "d-mon-y": "{d:02d}-{mon}-{y}",
    "long_en": "{d} {en} {y}",
    "long_be": "{d} {th} {be}",
    "short_be": "{d} {th_short} {be}",
    "long_de": "{d} de {month} de {y}",  # Spanish "25 de diciembre de 2018"
}


def fmt_date(day: date, style: str, lang: str) -> str:
    """``day`` printed in ``style`` (keys of DATE_STYLES) with ``lang``'s month names."""
    if style.startswith("dmy") and style.endswith("be"):
        style = "dmy/be"
    if style in _DATE_FORMATS:
        template = _DATE_FORMATS[style]
    elif lang == "de":
        template = "{d}. {month} {y}"
    elif lang == "fr" and day.day == 1:
        template = "1er {month} {y}"
    else:
        template = "{d} {month} {y}"
    en = _MONTHS["en"].split()[day.month - 1]
    return template.format(
        d=day.day,
        m=day.month,
        y=day.year,
        yy=day.year % 100,
        be=day.year + 543,
        en=en,
        mon=en[:3],
        th=_MONTHS["th"].split()[day.month - 1],
        th_short=_TH_MONTHS_SHORT[day.month - 1],
        month=_MONTHS.get(lang, _MONTHS["en"]).split()[day.month - 1],
    )


_CN_DIGITS = "零壹贰叁肆伍陆柒捌玖"


def cny_upper(amount: Decimal) -> str:
    """The amount in Chinese capital numerals as fapiao print it (壹仟贰佰叁拾肆圆伍角陆分)."""
    cents = int(money(abs(amount)) * 100)
    yuan, jiao, fen = cents // 100, cents // 10 % 10, cents % 10
    out = _cn_integer(yuan) + "圆" if yuan else ""
    if jiao:
        out += _CN_DIGITS[jiao] + "角"
    elif fen and yuan:
        out += "零"
    if fen:
        out += _CN_DIGITS[fen] + "分"
    return (out or "零圆") + ("" if fen else "整")


def _cn_integer(value: int) -> str:
    groups, out, zero = [], "", False
    while value:
        groups.append(value % 10000)
        value //= 10000
    for index in range(len(groups) - 1, -1, -1):
        group = groups[index]
        if group == 0:
            zero = bool(out)
            continue
        part = _cn_group(group, lead=not out)
        out += ("零" if zero or (out and group < 1000) else "") + part + ("", "万", "亿", "万亿")[index]
        zero = False
    return out


def _cn_group(value: int, lead: bool) -> str:
    out, zero = "", False
    for power, unit in ((1000, "仟"), (100, "佰"), (10, "拾"), (1, "")):
        digit = value // power % 10
        if digit:
            out += ("零" if zero and out else "") + _CN_DIGITS[digit] + unit
            zero = False
        elif out:
            zero = True
    return out


@cache
def faker_for(locale: str):
    from faker import Faker

    return Faker(locale)


def make_tax_id(rng: random.Random, country: str) -> str:
    digits = lambda n: "".join(str(rng.randrange(10)) for _ in range(n))  # noqa: E731
    if country == "FR":
        siren = int(digits(9))
        return f"FR{(12 + 3 * (siren % 97)) % 97:02d}{siren:09d}"
    if country == "CH":
        return f"CHE-{digits(3)}.{digits(3)}.{digits(3)}"
    if country == "NL":
        return f"NL{digits(9)}B{rng.randrange(1, 20):02d}"
    if country == "BE":
        return f"BE0{digits(9)}"
    if country == "ES":
        return f"{rng.choice('ABG')}{digits(8)}" if rng.random() < 0.5 else f"ES{rng.choice('ABG')}{digits(8)}"
    if country == "US":
        return f"{digits(2)}-{digits(7)}"
    if country == "JP":
        return f"T{digits(13)}"
    if country == "MY":
        return digits(12) if rng.random() < 0.7 else f"{digits(3)}-{digits(4)}-{digits(4)}"
    if country == "CN":
        return "91" + digits(6) + "MA" + "".join(rng.choice("0123456789ABCDEFGHJKLMNPQRTUWXY") for _ in range(8))
    if country == "TH":
        return "0" + digits(12)
    if country == "IT":
        return "IT" + digits(11)
    if country == "GB":
        return f"GB{digits(3)} {digits(4)} {digits(2)}" if rng.random() < 0.5 else "GB" + digits(9)
    if country == "AT":
        return "ATU" + digits(8)
    if country == "IE":
        return f"IE{digits(7)}{rng.choice('ABCDEFGHW')}"
    return f"{country}{digits(9)}"


ROMAN_WORDS = {
    "zh": ("huaxin", "tianli", "xinda", "longsheng", "jiahe", "hongda", "zhongke", "dingtai"),
    "th": ("siam", "thaiprime", "goldenstar", "royalasia", "chaiyo", "sukjai", "rungroj", "thanakorn"),
}


TLD = {
    "DE": ("de", "com"),
    "AT": ("at",),
    "CH": ("ch",),
    "FR": ("fr", "com"),
    "BE": ("be",),
    "NL": ("nl",),
    "ES": ("es", "com"),
    "IT": ("it",),
    "GB": ("co.uk",),
    "IE": ("ie",),
    "US": ("com", "net"),
    "CN": ("cn", "com.cn"),
    "TH": ("co.th",),
    "MY": ("com.my",),
    "JP": ("co.jp",),
}
